#include "launcher/cli/cli.h"

int main(int argc, char** argv) { return cordon::cli_main(argc, argv); }
