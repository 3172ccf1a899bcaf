// The command line: parses arguments with CLI11 and dispatches to run / argv / doctor.
// The only place that turns cordon::Error into a message and an exit status.
#pragma once

namespace cordon {

int cli_main(int argc, char** argv);

}  // namespace cordon
