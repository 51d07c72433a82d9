/*
 * witch.h - progress points and blocking hooks for `witch causal`.
 *
 * Header-only. The progress-point macros are those of coz.h, with the same
 * ABI: a program built against either header works under either profiler.
 * Under no profiler every macro does nothing (one predictable branch).
 *
 *   COZ_PROGRESS             a throughput progress point named FILE:LINE
 *   COZ_PROGRESS_NAMED(name) a throughput progress point named `name`
 *   COZ_BEGIN(name)          a request arrives (latency point `name`)
 *   COZ_END(name)            a request departs
 *
 * For synchronisation witch does not interpose (custom locks, futexes,
 * lock-free queues), the hooks of COZ section 3.4:
 *
 *   COZ_CATCH_UP()           before waking another thread (Table 1)
 *   COZ_PRE_BLOCK()          before the thread may block (Table 2)
 *   COZ_POST_BLOCK(skip)     after it: skip != 0 when another thread woke it
 */
#ifndef WITCH_H
#define WITCH_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef COZ_COUNTER_TYPE_THROUGHPUT
#define COZ_COUNTER_TYPE_THROUGHPUT 1
#define COZ_COUNTER_TYPE_BEGIN 2
#define COZ_COUNTER_TYPE_END 3
#endif

/* No libdl needed: a program that does not link it sees a null dlsym. */
void *dlsym(void *handle, const char *symbol) __attribute__((weak));

typedef struct {
	size_t count;	/* incremented atomically by the program */
	size_t backoff;	/* unused */
} witch_counter_t;

typedef witch_counter_t *(*witch_get_counter_fn)(int, const char *);

static inline void *witch__lookup(const char *name)
{
	return dlsym ? dlsym(RTLD_DEFAULT, name) : NULL;
}

static inline witch_counter_t *witch__counter(int type, const char *name)
{
	static int looked_up;
	static witch_get_counter_fn fn;

	if (!looked_up) {
		void *p = witch__lookup("_coz_get_counter");

		memcpy(&fn, &p, sizeof(p));
		looked_up = 1;
	}
	return fn ? fn(type, name) : NULL;
}

#define WITCH__INCREMENT(type, name)                                              \
	do {                                                                      \
		static int witch__init_;                                          \
		static witch_counter_t *witch__c_;                                \
		if (!witch__init_) {                                              \
			witch__c_ = witch__counter(type, name);                   \
			witch__init_ = 1;                                         \
		}                                                                 \
		if (witch__c_)                                                    \
			__atomic_add_fetch(&witch__c_->count, 1, __ATOMIC_RELAXED); \
	} while (0)

#define WITCH__STR2(x) #x
#define WITCH__STR(x) WITCH__STR2(x)

#ifndef COZ_PROGRESS
#define COZ_PROGRESS_NAMED(name) WITCH__INCREMENT(COZ_COUNTER_TYPE_THROUGHPUT, name)
#define COZ_PROGRESS WITCH__INCREMENT(COZ_COUNTER_TYPE_THROUGHPUT, __FILE__ ":" WITCH__STR(__LINE__))
#define COZ_BEGIN(name) WITCH__INCREMENT(COZ_COUNTER_TYPE_BEGIN, name)
#define COZ_END(name) WITCH__INCREMENT(COZ_COUNTER_TYPE_END, name)
#endif

/* The hooks: resolved once, called when the profiler is there. */
typedef void (*witch_void_fn)(void);
typedef void (*witch_int_fn)(int);
#define WITCH__HOOK(var, sym, type)                                               \
	static int var##_init_;                                                   \
	static type var##_fn_;                                                    \
	if (!var##_init_) {                                                       \
		void *p_ = witch__lookup(sym);                                    \
		memcpy(&var##_fn_, &p_, sizeof(p_));                              \
		var##_init_ = 1;                                                  \
	}

static inline void witch_pre_block(void)
{
	WITCH__HOOK(pre, "_coz_pre_block", witch_void_fn)
	if (pre_fn_)
		pre_fn_();
}

static inline void witch_post_block(int skip)
{
	WITCH__HOOK(post, "_coz_post_block", witch_int_fn)
	if (post_fn_)
		post_fn_(skip);
}

static inline void witch_catch_up(void)
{
	WITCH__HOOK(catch_up, "_coz_catch_up", witch_void_fn)
	if (catch_up_fn_)
		catch_up_fn_();
}

#define COZ_PRE_BLOCK() witch_pre_block()
#define COZ_POST_BLOCK(skip) witch_post_block(skip)
#define COZ_CATCH_UP() witch_catch_up()

#ifdef __cplusplus
}
#endif

#endif
