/*
 * worker.c: one helper thread over a bounded queue (ant_worker.h).  Two
 * rings of cap slots: todo (the caller puts, the thread takes) and done
 * (the thread puts, the caller takes); one mutex, two conditions.
 */
#include "ant_worker.h"

#include <pthread.h>
#include <stdlib.h>

struct ring {
	void **v;
	size_t head, n;
};

struct ant_worker {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t work;      /* todo got an item, or stop */
	pthread_cond_t back;      /* done got an item */
	struct ring todo, done;
	size_t cap, inside;       /* inside: put and not yet taken back */
	int stop;
	ant_worker_fn fn;
	void *ctx;
	ant_worker_wake_fn wake;
	void *wctx;
};

static void ring_push(struct ring *r, size_t cap, void *item)
{
	r->v[(r->head + r->n++) % cap] = item;
}

static void *ring_pop(struct ring *r, size_t cap)
{
	void *item = r->v[r->head];

	r->head = (r->head + 1) % cap;
	r->n--;
	return item;
}

static void *helper(void *arg)
{
	ant_worker *s = arg;
	void *item;

	pthread_mutex_lock(&s->mu);
	for (;;) {
		while (!s->todo.n && !s->stop)
			pthread_cond_wait(&s->work, &s->mu);
		if (!s->todo.n)
			break;   /* stopped, and nothing left to do */
		item = ring_pop(&s->todo, s->cap);
		pthread_mutex_unlock(&s->mu);
		s->fn(s->ctx, item);
		pthread_mutex_lock(&s->mu);
		ring_push(&s->done, s->cap, item);
		pthread_cond_signal(&s->back);
		/* woken when the thread runs dry, not at each item: the caller
		 * takes back what is done whenever it comes by, and a wake is a
		 * system call and a turn of its loop */
		if (s->wake && !s->todo.n) {
			pthread_mutex_unlock(&s->mu);
			s->wake(s->wctx);
			pthread_mutex_lock(&s->mu);
		}
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

ant_worker *ant_worker_new(size_t cap, ant_worker_fn fn, void *ctx, ant_worker_wake_fn wake,
			 void *wctx)
{
	ant_worker *s;

	if (!cap || !fn || !(s = calloc(1, sizeof *s)))
		return NULL;
	s->cap = cap;
	s->fn = fn;
	s->ctx = ctx;
	s->wake = wake;
	s->wctx = wctx;
	s->todo.v = calloc(cap, sizeof *s->todo.v);
	s->done.v = calloc(cap, sizeof *s->done.v);
	if (!s->todo.v || !s->done.v)
		goto fail;
	if (pthread_mutex_init(&s->mu, NULL) != 0)
		goto fail;
	if (pthread_cond_init(&s->work, NULL) != 0)
		goto fail_mu;
	if (pthread_cond_init(&s->back, NULL) != 0)
		goto fail_work;
	if (pthread_create(&s->thread, NULL, helper, s) != 0)
		goto fail_back;
	return s;
fail_back:
	pthread_cond_destroy(&s->back);
fail_work:
	pthread_cond_destroy(&s->work);
fail_mu:
	pthread_mutex_destroy(&s->mu);
fail:
	free(s->todo.v);
	free(s->done.v);
	free(s);
	return NULL;
}

int ant_worker_put(ant_worker *s, void *item)
{
	int full;

	pthread_mutex_lock(&s->mu);
	/* both rings have cap slots: what is inside always fits either */
	full = s->inside >= s->cap;
	if (!full) {
		s->inside++;
		ring_push(&s->todo, s->cap, item);
		pthread_cond_signal(&s->work);
	}
	pthread_mutex_unlock(&s->mu);
	return full;
}

static void *take(ant_worker *s, int wait)
{
	void *item = NULL;

	pthread_mutex_lock(&s->mu);
	while (wait && !s->done.n && s->inside)
		pthread_cond_wait(&s->back, &s->mu);
	if (s->done.n) {
		item = ring_pop(&s->done, s->cap);
		s->inside--;
	}
	pthread_mutex_unlock(&s->mu);
	return item;
}

void *ant_worker_take(ant_worker *s)
{
	return take(s, 0);
}

void *ant_worker_wait(ant_worker *s)
{
	return take(s, 1);
}

size_t ant_worker_inside(ant_worker *s)
{
	size_t n;

	pthread_mutex_lock(&s->mu);
	n = s->inside;
	pthread_mutex_unlock(&s->mu);
	return n;
}

void ant_worker_free(ant_worker *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	s->stop = 1;
	pthread_cond_signal(&s->work);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->thread, NULL);
	pthread_cond_destroy(&s->back);
	pthread_cond_destroy(&s->work);
	pthread_mutex_destroy(&s->mu);
	free(s->todo.v);
	free(s->done.v);
	free(s);
}
