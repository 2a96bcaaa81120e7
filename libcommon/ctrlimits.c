/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <stdlib.h>
#include <string.h>

#include "ctrlimits.h"

static const struct unit {
	const char		*name;
	unsigned long long	 mult;
} units[] = {
	{ "B", 1ULL },
	{ "kB", 1000ULL }, { "MB", 1000ULL * 1000 },
	{ "GB", 1000ULL * 1000 * 1000 }, { "TB", 1000ULL * 1000 * 1000 * 1000 },
	{ "PB", 1000ULL * 1000 * 1000 * 1000 * 1000 },
	{ "EB", 1000ULL * 1000 * 1000 * 1000 * 1000 * 1000 },
	{ "KiB", 1ULL << 10 }, { "MiB", 1ULL << 20 }, { "GiB", 1ULL << 30 },
	{ "TiB", 1ULL << 40 }, { "PiB", 1ULL << 50 }, { "EiB", 1ULL << 60 },
	{ NULL, 0 }
};

/* 1 to 15 digits, no leading zero, not 0; how many, or 0 */
static size_t
lead_digits(const char *s)
{
	size_t	n = strspn(s, "0123456789");

	if (n == 0 || n > 15 || s[0] == '0')
		return 0;
	return n;
}

int
lim_size_ok(const char *s, int pct_ok)
{
	const struct unit	*u;
	size_t			 n;
	long			 pct;

	if ((n = lead_digits(s)) == 0)
		return 0;
	if (strcmp(s + n, "%") == 0) {
		pct = strtol(s, NULL, 10);
		return pct_ok && pct >= 1 && pct <= 100;
	}
	for (u = units; u->name != NULL; u++)
		if (strcmp(s + n, u->name) == 0)
			return 1;
	return 0;
}

unsigned long long
lim_size_bytes(const char *s)
{
	const struct unit	*u;
	unsigned long long	 v;
	size_t			 n;

	if (!lim_size_ok(s, 0))
		return 0;
	n = lead_digits(s);
	v = strtoull(s, NULL, 10);
	for (u = units; u->name != NULL; u++)
		if (strcmp(s + n, u->name) == 0)
			break;
	if (u->name == NULL || v > ~0ULL / u->mult)
		return 0;
	return v * u->mult;
}

int
lim_count_ok(const char *s, long long min, long long max)
{
	size_t		n = strspn(s, "0123456789");
	long long	v;

	if (n == 0 || n > 15 || s[n] != '\0' || (s[0] == '0' && n > 1))
		return 0;
	v = strtoll(s, NULL, 10);
	return v >= min && v <= max;
}

int
lim_cpu_parse(const char *s, int *count, int *pct)
{
	size_t	n = strspn(s, "0123456789");
	long	v;

	*count = *pct = 0;
	if (n == 0 || n > 4 || s[0] == '0')
		return -1;
	v = strtol(s, NULL, 10);
	if (s[n] == '\0' && v <= LIM_CPU_MAX) {
		*count = (int)v;
		return 0;
	}
	if (strcmp(s + n, "%") == 0 && v <= 100) {
		*pct = (int)v;
		return 0;
	}
	return -1;
}

int
lim_cpu_share(int pct, long host_cpus)
{
	long	n;

	if (host_cpus < 1)
		host_cpus = 1;
	n = host_cpus * pct / 100;
	if (n < 1)
		n = 1;
	return n > LIM_CPU_MAX ? LIM_CPU_MAX : (int)n;
}
