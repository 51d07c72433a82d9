/*
 * env.h - a runtime reads its settings from the environment the CLI set
 * (core/contract.h names them). Only the CLI sets them, and it checked
 * them: a value that is absent or not what the CLI would write gives the
 * default. Not for handlers (getenv).
 */
#ifndef WITCH_CORE_ENV_H
#define WITCH_CORE_ENV_H

/* The whole number in `name`, if it lies in [lo, hi]; else def. */
long core_env_long(const char *name, long def, long lo, long hi);

/* Whether `name` is set to `value`. */
int core_env_is(const char *name, const char *value);

/* `name`'s value, or NULL when it is unset or empty. */
const char *core_env_str(const char *name);

#endif
