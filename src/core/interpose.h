/*
 * interpose.h - the libc calls the core takes over so that profiling never
 * changes what the program observes and never loses what it measured
 * (interpose.c): signal dispositions and masks, exec* and _exit. It calls
 * the tool's hooks (tool.h).
 */
#ifndef WITCH_CORE_INTERPOSE_H
#define WITCH_CORE_INTERPOSE_H

#include <signal.h>

#define CORE_MAX_OWN_SIGNALS 2

/* Resolve libc's versions; the tool calls these itself, never the wrappers. */
void core_interpose_resolve(void);
int core_real_sigaction(int sig, const struct sigaction *act, struct sigaction *oact);

/* The tool's own signals (at most CORE_MAX_OWN_SIGNALS): the program can
 * neither take nor block them. Fatal signals left at their default get a
 * stand-in that ends the run first, and on_sigio stands in for SIGIO. */
void core_interpose_signals(const int *own, int n, void (*on_sigio)(int, siginfo_t *, void *));

/* --watch=pages: the tool handles sig first, the program's action gets the
 * rest (core_interpose_forward); the program's handlers run on the
 * alternate stack. */
void core_interpose_alt_stack_only(void);
void core_interpose_share(int sig);
void core_interpose_forward(int sig, siginfo_t *si, void *uc);

#endif
