#include "launcher/review/review_change.h"

namespace cordon::review {

const char* kind_name(ChangeKind kind) {
  switch (kind) {
    case ChangeKind::Added: return "added";
    case ChangeKind::Deleted: return "deleted";
    case ChangeKind::Modified: return "modified";
    case ChangeKind::ModeOnly: return "mode";
    case ChangeKind::Retyped: return "retyped";
  }
  return "?";
}

}  // namespace cordon::review
