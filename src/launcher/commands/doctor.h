// `cordon doctor`: is this host able to enforce what cordon promises? Each row that would make
// a launch refuse is a FAIL, with the fix.
#pragma once

#include <string>
#include <vector>

#include "launcher/inputs/config.h"

namespace cordon {

enum class DoctorStatus { Pass, Warn, Fail };

struct DoctorRow {
  DoctorStatus status;
  std::string name;
  std::string detail;
  std::string fix;  // how to fix a FAIL or WARN
};

// `config_problem`: why the configuration could not be loaded ("" when it was); the config is
// then the built-in defaults.
std::vector<DoctorRow> run_doctor(const Config& config, const std::string& config_problem = "");

// Prints the rows; returns the number of FAIL rows.
int print_doctor(const std::vector<DoctorRow>& rows, bool json);

// `cordon doctor`: loads the configuration (an invalid one is a FAIL row, not an abort), checks,
// prints. Exit status: 0 no FAIL row, 1 a FAIL row, 2 the configuration is invalid.
int doctor_command(const std::string& config_path, bool json);

}  // namespace cordon
