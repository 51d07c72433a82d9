/*
 * unwinds: a program that walks its own stack with libunwind, whose locks
 * block every signal. witch must leave libunwind's signal blocking alone,
 * or a sample arriving inside the lock deadlocks unwinding again.
 */
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <stdio.h>
static volatile int sink[1024];
__attribute__((noipa)) int depth(void){ unw_cursor_t c; unw_context_t u; unw_getcontext(&u); unw_init_local(&c,&u); int n=0; while(unw_step(&c)>0) n++; for(int i=0;i<1024;i++) sink[i]=n; return n; }
int main(){ long s=0; for(int i=0;i<300000;i++) s+=depth(); printf("%ld\n",s); }
