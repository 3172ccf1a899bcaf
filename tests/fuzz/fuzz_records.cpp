// The records cordon reads back, which whoever can write the records directory controls
// (record/record_file.h): a session record (manifest and receipt lines), the session file a
// sandbox reads as its record of intent (common/intent.h) and a state file's receipt-failed
// note (record/session_state.h). Each input is given to all three readers.
//   - parse_record, parse_session and receipt_failed_note never throw;
//   - what `cordon sessions` reads of a parsed record (record/sessions.cpp) throws at most
//     cordon::Error, and its JSON output never throws;
//   - a session file parse_session accepts serializes to one it reads back the same.
#include <sys/mman.h>
#include <unistd.h>

#include <exception>
#include <string>

#include "common/error.h"
#include "common/intent.h"
#include "common/json_codec.h"
#include "fuzz_common.h"
#include "launcher/record/record_file.h"
#include "launcher/record/session_state.h"

namespace {
constexpr std::string_view kFuzzTarget = "records";
using cordon::Json;

// As sessions.cpp's view_of, shown_member and print_session read a record.
void read_like_sessions(const cordon::ParsedRecord& record) {
  if (record.receipt) {
    const Json& r = *record.receipt;
    FUZZ_CHECK(r.is_object(), "parse_record kept a receipt that is not an object");
    (void)cordon::integer_member(r, "exit_code");
    (void)r.contains("crashed");
    (void)(r.value("command_ran", Json(false)) == Json(false) && !r.value("launch_error", Json(nullptr)).is_null());
  }
  if (record.manifest) {
    FUZZ_CHECK(record.manifest->is_object(), "parse_record kept a manifest that is not an object");
    for (const char* name : {"agent", "workspace", "started"}) {
      if (!record.manifest->contains(name)) continue;
      try {
        (void)cordon::bytes_from_json((*record.manifest)[name]);
      } catch (const cordon::Error&) {
      }
    }
  }
  const Json doc{{"manifest", record.manifest ? *record.manifest : Json(nullptr)},
                 {"receipt", record.receipt ? *record.receipt : Json(nullptr)}};
  (void)cordon::dump_line(doc);
}

void session_round_trip(const std::string& text) {
  std::string problem;
  const std::optional<cordon::SessionIntent> intent = cordon::parse_session(text, &problem);
  if (!intent) {
    FUZZ_CHECK(!problem.empty(), "parse_session refused without saying why");
    return;
  }
  const std::string once = cordon::serialize_session(*intent);
  const std::optional<cordon::SessionIntent> again = cordon::parse_session(once, &problem);
  FUZZ_CHECK(again.has_value(), "parse_session refuses what serialize_session wrote: " + problem);
  FUZZ_CHECK(cordon::serialize_session(*again) == once, "a session file does not read back as written");
}

void receipt_note(std::string_view text) {
  static const int fd = ::memfd_create("fuzz-state", MFD_CLOEXEC);
  if (fd < 0) std::abort();
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size()))
    std::abort();
  const std::optional<cordon::ReceiptNote> note = cordon::receipt_failed_note(fd);
  if (note) FUZZ_CHECK(note->cause.find('\n') == std::string::npos, "a receipt-failed cause spans lines");
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(cordon::fuzz::as_text(data, size));
  try {
    read_like_sessions(cordon::parse_record(text));
    session_round_trip(text);
    receipt_note(text);
  } catch (const std::exception& e) {
    cordon::fuzz::violated(kFuzzTarget, std::string("a record reader threw: ") + e.what());
  } catch (...) {
    cordon::fuzz::violated(kFuzzTarget, "a record reader threw a non-exception");
  }
  return 0;
}
