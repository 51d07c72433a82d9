/*
 * thread.h - the program's threads, as both tools see them (thread.c).
 * The core owns pthread_create: a thread the program creates runs the
 * tool's tool_thread_begin before its function, and tool_thread_end when
 * it ends (core/tool.h).
 */
#ifndef WITCH_CORE_THREAD_H
#define WITCH_CORE_THREAD_H

#include <pthread.h>

/*
 * Once, in the tool's constructor, before any thread is created. A thread
 * marked with core_thread_mark ends at its exit (the destructor of a
 * thread-specific key). With end_on_return it also ends as its function
 * returns, before the program's thread-local destructors; else the
 * function returns straight into libc, and no frame of the tool's lies
 * under the program's in the thread's calling contexts.
 */
void core_threads_init(int end_on_return);

/* The calling thread has tool state (not NULL): end it at the thread's exit. */
void core_thread_mark(void *state);

/* libc's pthread_create: a thread of the tool's own, which no tool sees. */
int core_real_pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
			     void *arg);

/* Push thread t on the list at head, which readers walk without a lock
 * (a thread is never taken off it). */
#define CORE_THREAD_PUSH(head, t)                                                           \
	do {                                                                                \
		(t)->next = (head);                                                         \
	} while (!__atomic_compare_exchange_n(&(head), &(t)->next, (t), 0, __ATOMIC_RELEASE, \
					      __ATOMIC_RELAXED))

#endif
