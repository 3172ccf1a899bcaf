#include "probe/target.h"

#include "probe/util.h"

namespace cordon::probe {

TargetView resolve_target(const Context& ctx) {
  TargetView view;
  if (!ctx.options.target) return view;
  const TargetPid& t = *ctx.options.target;
  view.pid = t.pid;
  const std::string proc = "/proc/" + std::to_string(t.pid);
  if (!exists(proc)) {
    view.state = TargetView::State::Candidate;
    view.why = "pid " + std::to_string(t.pid) + " is not in this /proc";
    return view;
  }
  auto start = proc_starttime(t.pid);
  if (t.start && start && *start != *t.start) {
    view.state = TargetView::State::NotAddressable;
    view.why = "pid " + std::to_string(t.pid) + " here is another process (start " + std::to_string(*start) +
               ", target " + std::to_string(*t.start) + "): the host process is not addressable";
    return view;
  }
  view.state = TargetView::State::Candidate;
  if (!t.start) view.why = "no START given: identity unchecked";
  return view;
}

}  // namespace cordon::probe
