// The intent's JSON objects, for the documents that embed them (status --json, the
// manifest). Include only where JSON is encoded: it pulls in nlohmann-json. Defined in
// intent.cpp, next to the session file's codec; the types are in common/intent.h.
#pragma once

#include "common/json_codec.h"

namespace cordon {

struct SessionIntent;
struct NetworkIntent;

// The intent's members (without "format"/"version"), in schema order.
Json intent_json(const SessionIntent& intent);
Json network_json(const NetworkIntent& network);
// Throws cordon::Error when a member has the wrong type.
SessionIntent intent_from_json(const Json& document);

}  // namespace cordon
