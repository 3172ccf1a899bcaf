#include "launcher/run/review_session.h"

#include <sys/stat.h>

#include "common/error.h"
#include "common/print.h"
#include "common/text.h"
#include "launcher/record/review_store.h"
#include "launcher/review/review_changes.h"

namespace cordon {

void finish_review(const std::string& review_dir, const std::string& id, bool discard) {
  struct stat st {};
  if (review_dir.empty() || ::lstat(review_dir.c_str(), &st) != 0) return;
  try {
    if (discard || ::lstat((review_dir + "/base.json").c_str(), &st) != 0) {  // refused before the overlay existed
      review::remove_review(review_dir);
      return;
    }
    const review::ReviewBase base = review::read_review_base(review_dir);
    const size_t count = review::pending_changes(review_dir, base).size();
    if (count == 0) {
      review::remove_review(review_dir);
      print_err("cordon: review mode: session " + id + " changed nothing\n");
      return;
    }
    print_err("cordon: review mode: " + std::to_string(count) + " change(s) of session " + id +
              " wait for review; the host tree is unchanged.\n  cordon diff --session " + id +
              "     (what changed, and the scan's findings)\n  cordon apply --session " + id + "    (write them into " +
              terminal_safe(base.workspace) + ")\n  cordon discard --session " + id + "  (throw them away)\n");
  } catch (const Error& e) {
    print_err("cordon: review mode: session " + id + "'s review is kept in " + terminal_safe(review_dir) +
              " but could not be read: " + terminal_safe(e.what()) + "\n");
  }
}

}  // namespace cordon
