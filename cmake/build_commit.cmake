# Writes OUTPUT, a header holding the git commit SOURCE_DIR is built from (`cordon --version`).
# Run at every build (a new commit needs no reconfigure); file(CONFIGURE) rewrites the header
# only when its text changes, so an unchanged commit rebuilds nothing.
#   cmake -DSOURCE_DIR=... -DGIT_EXECUTABLE=... -DOUTPUT=... -P build_commit.cmake
# "unknown" when SOURCE_DIR is not the top of a git checkout: a release tarball, or one
# unpacked inside some other repository, whose commit would be a lie. A copy that
# scripts/package made from a checkout carries that checkout's commit in .cordon-commit
# ("COMMIT" or "COMMIT modified"), written from git by the script, not by hand.
set(commit "unknown")
set(modified "false")
if(GIT_EXECUTABLE AND EXISTS "${GIT_EXECUTABLE}")
  # safe.directory: a root build of a tree another user owns is still that tree's commit.
  set(git "${GIT_EXECUTABLE}" -c "safe.directory=${SOURCE_DIR}" -C "${SOURCE_DIR}")
  execute_process(COMMAND ${git} rev-parse --show-toplevel HEAD RESULT_VARIABLE failed
                  OUTPUT_VARIABLE lines ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT failed)
    string(REPLACE "\n" ";" lines "${lines}")
    list(GET lines 0 top)
    list(GET lines 1 head)
    file(REAL_PATH "${top}" top)
    file(REAL_PATH "${SOURCE_DIR}" source)
    if(top STREQUAL source AND head MATCHES "^[0-9a-f]+$")
      set(commit "${head}")
      # Tracked files that differ from the commit: the binary is not exactly that commit.
      execute_process(COMMAND ${git} diff --quiet HEAD -- RESULT_VARIABLE differs ERROR_QUIET)
      if(differs)
        set(modified "true")
      endif()
    endif()
  endif()
endif()
if(commit STREQUAL "unknown" AND EXISTS "${SOURCE_DIR}/.cordon-commit")
  file(STRINGS "${SOURCE_DIR}/.cordon-commit" recorded LIMIT_COUNT 1)
  if(recorded MATCHES "^([0-9a-f]+)( modified)?$")
    set(commit "${CMAKE_MATCH_1}")
    if(CMAKE_MATCH_2)
      set(modified "true")
    endif()
  endif()
endif()
file(CONFIGURE OUTPUT "${OUTPUT}" CONTENT "// Generated at every build by cmake/build_commit.cmake.
#pragma once

namespace cordon::build {
// The git commit this binary was built from, \"unknown\" outside a git checkout.
inline constexpr const char* kCommit = \"${commit}\";
// Whether tracked files differed from that commit at build time.
inline constexpr bool kCommitModified = ${modified};
}  // namespace cordon::build
" @ONLY)
