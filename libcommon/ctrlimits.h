/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

/*
 * The resource limits of a container, as the config writes them and as
 * Incus takes them: limits.memory, limits.cpu, limits.processes and the
 * size of the root disk.  Pure checks, shared by the config parser, the
 * parent (new --memory, --cpu) and jb-incus (what it sends to Incus).
 */

#ifndef JB_CTRLIMITS_H
#define JB_CTRLIMITS_H

#define LIM_CPU_MAX		1024	/* limits.cpu, a count */
#define LIM_PROCESSES_MIN	16	/* fewer cannot boot the container */
#define LIM_PROCESSES_MAX	4194304	/* the kernel's pid_max ceiling */
#define LIM_SIZE_MAX		31	/* "123GiB" and the like */

/*
 * A size with its unit, as Incus takes it: 1 to 15 digits, no leading
 * zero, then B, kB, MB, GB, TB, PB, EB, KiB, MiB, GiB, TiB, PiB or EiB;
 * with pct_ok also 1% to 100% (of the host's memory).  A bare number is
 * refused: a forgotten unit would mean bytes.  1 good, 0 not.
 */
int	lim_size_ok(const char *s, int pct_ok);
/* a size in bytes, 0 when s is not one lim_size_ok(s, 0) takes */
unsigned long long lim_size_bytes(const char *s);
/* a decimal count in [min, max], no sign, no leading zero; 1 good */
int	lim_count_ok(const char *s, long long min, long long max);
/*
 * A CPU limit: a count 1..LIM_CPU_MAX, or a share of the host "1%" to
 * "100%".  0 with *count or *pct set (the other 0), -1 when neither.
 */
int	lim_cpu_parse(const char *s, int *count, int *pct);
/* pct percent of host_cpus, rounded down, at least 1 */
int	lim_cpu_share(int pct, long host_cpus);

#endif /* JB_CTRLIMITS_H */
