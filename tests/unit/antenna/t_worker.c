/* t_worker: ant_worker.h: items worked on by the helper thread come back,
 * each once, a full queue refuses, the wake is called, and freeing waits
 * for the work inside. */
#include "tap.h"
#include "ant_worker.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

static atomic_int wakes;

static void square(void *ctx, void *item)
{
	long *v = item;

	(void)ctx;
	*v = *v * *v;
}

static void slow(void *ctx, void *item)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	nanosleep(&ts, NULL);
	square(ctx, item);
}

static void wake(void *wctx)
{
	(void)wctx;
	atomic_fetch_add(&wakes, 1);
}

int main(void)
{
	enum { N = 1000, CAP = 8 };
	static long v[N];
	static unsigned char seen[N];
	ant_worker *s = ant_worker_new(CAP, square, NULL, wake, NULL);
	long *got;
	size_t back = 0, inline_done = 0, twice = 0, wrong = 0;
	int full = 0;

	TAP_PLAN(11);
	OK(s != NULL, "a stage of 8 starts");
	OK(ant_worker_new(0, square, NULL, NULL, NULL) == NULL, "a stage of 0 is refused");
	/* N items through a stage of CAP: the caller works on those refused */
	for (size_t i = 0; i < N; i++) {
		v[i] = (long)i;
		if (ant_worker_put(s, &v[i]) == 1) {
			square(NULL, &v[i]);
			seen[i]++;
			inline_done++;
		}
		while ((got = ant_worker_take(s))) {
			twice += seen[got - v]++ > 0;
			back++;
		}
	}
	while ((got = ant_worker_wait(s))) {
		twice += seen[got - v]++ > 0;
		back++;
	}
	for (size_t i = 0; i < N; i++)
		wrong += v[i] != (long)(i * i) || seen[i] != 1;
	IS_INT(back + inline_done, N, "every item comes back or was the caller's");
	IS_INT(twice, 0, "no item comes back twice");
	IS_INT(wrong, 0, "every item worked on once");
	IS_INT(ant_worker_inside(s), 0, "nothing inside once all are taken");
	OK(ant_worker_wait(s) == NULL, "wait with nothing inside returns at once");
	ant_worker_free(s);   /* joined: its last wake is made */
	OK(atomic_load(&wakes) >= 1 && (size_t)atomic_load(&wakes) <= back,
	   "the wake is called when the thread runs dry, at most once an item (%d for %zu)",
	   atomic_load(&wakes), back);

	/* a slow helper: the stage fills, and refuses */
	s = ant_worker_new(2, slow, NULL, NULL, NULL);
	v[0] = 3, v[1] = 4, v[2] = 5;
	full = ant_worker_put(s, &v[0]) == 0 && ant_worker_put(s, &v[1]) == 0 && ant_worker_put(s, &v[2]) == 1;
	OK(full, "a stage of 2 refuses a third item");
	IS_INT(ant_worker_inside(s), 2, "two inside");
	/* freed with items inside: their work is done before it returns */
	ant_worker_free(s);
	OK(v[0] == 9 && v[1] == 16 && v[2] == 5, "free waits for the work inside");
	ant_worker_free(NULL);
	TAP_DONE();
}
