/*
 * thread.c - pthread_create for both tools (thread.h): the program's new
 * thread passes through a trampoline that lets the tool begin it, and a
 * thread-specific key ends it at its exit.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/thread.h"
#include "core/tool.h"

static pthread_key_t thread_key;
static int end_on_return;
static int (*real_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

static void key_destructor(void *state)
{
	(void)state;
	tool_thread_end();
}

void core_threads_init(int end_at_return)
{
	end_on_return = end_at_return;
	pthread_key_create(&thread_key, key_destructor);
}

void core_thread_mark(void *state)
{
	pthread_setspecific(thread_key, state);
}

int core_real_pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
			     void *arg)
{
	if (!real_create)
		real_create = dlsym(RTLD_NEXT, "pthread_create");
	return real_create(th, attr, fn, arg);
}

struct start_arg {
	void *(*fn)(void *);
	void *arg;
	uint64_t inherit;
};

static void *trampoline(void *p)
{
	struct start_arg a = *(struct start_arg *)p;
	void *rc;

	free(p);
	tool_thread_begin(a.inherit);
	if (!end_on_return)
		return a.fn(a.arg);	/* a tail call: no frame of ours under the program's */
	rc = a.fn(a.arg);
	tool_thread_end();
	return rc;
}

int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
	__attribute__((visibility("default")));

int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	struct start_arg *a;
	uint64_t inherit;
	int rc;

	if (tool_thread_creating(&inherit) < 0 || !(a = malloc(sizeof(*a))))
		return core_real_pthread_create(th, attr, fn, arg);
	a->fn = fn;
	a->arg = arg;
	a->inherit = inherit;
	rc = core_real_pthread_create(th, attr, trampoline, a);
	if (rc)
		free(a);
	return rc;
}
