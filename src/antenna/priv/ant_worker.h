/*
 * ant_worker.h: one helper thread that works on items beside the caller's
 * thread, and hands them back.
 *
 * update's checks parse each page answered while the transfers of the
 * others go on (fetch.c, limits->prepare): on two cores the parse of a
 * page no longer holds up the network loop.  The stage holds at most cap
 * items at once (its memory is that of cap answers); a full stage refuses
 * an item, and the caller works on it itself.  Items come back in the
 * order they were done; fn must need nothing the caller's thread changes
 * meanwhile.
 */
#ifndef ANT_WORKER_H
#define ANT_WORKER_H

#include <stddef.h>

typedef struct ant_worker ant_worker;

/* What the helper thread does with an item (on that thread). */
typedef void (*ant_worker_fn)(void *ctx, void *item);
/* Called on the helper thread when an item is done and no other waits,
 * e.g. to wake the caller's poll (curl_multi_wakeup); may be NULL. */
typedef void (*ant_worker_wake_fn)(void *wctx);

/* A stage of at most cap items with its thread started; NULL when out
 * of memory, cap is 0, or no thread can be started (then the caller
 * works alone). */
ant_worker *ant_worker_new(size_t cap, ant_worker_fn fn, void *ctx, ant_worker_wake_fn wake,
			 void *wctx);
/* Hands item over: 0, or 1 when the stage is full (item not taken). */
int ant_worker_put(ant_worker *s, void *item);
/* A done item, or NULL when none is done yet (does not wait). */
void *ant_worker_take(ant_worker *s);
/* A done item, waiting for one while any is inside; NULL when none is. */
void *ant_worker_wait(ant_worker *s);
/* Items handed over and not yet taken back. */
size_t ant_worker_inside(ant_worker *s);
/* Stops the thread after the items inside are done, and frees the
 * stage; items not taken back are the caller's loss (take them first).
 * NULL does nothing. */
void ant_worker_free(ant_worker *s);

#endif
