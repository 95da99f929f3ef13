/* Handing a kernel's tasks to the host's threads (kiln_host, kernels.h).
 * Internal to runtime/kernels: an AOT bundle copies it beside the kernels. */
#ifndef KILN_KERNELS_HOST_TASKS_H_
#define KILN_KERNELS_HOST_TASKS_H_

#include <stdint.h>

#include "kiln/kernels.h"

/* Runs body(ctx, 0, tasks), split over the host's threads when it offers
 * them, there is more than one task and `work` (the caller's measure:
 * multiply-adds or elements) reaches `min_work`: below that, the hand-off
 * costs more than it saves. Results never depend on which way it ran. */
static inline void kiln_run_tasks(const kiln_host* host, int64_t tasks, double work,
                                  double min_work, void (*body)(void*, int64_t, int64_t),
                                  void* ctx) {
  if (host && host->parallel_for && tasks > 1 && work >= min_work) {
    host->parallel_for(host->user, tasks, body, ctx);
  } else {
    body(ctx, 0, tasks);
  }
}

#endif /* KILN_KERNELS_HOST_TASKS_H_ */
