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
 * Linked into every unit test program built under the sanitizers.
 * libatf-c keeps the list it builds for -l until exit, which
 * LeakSanitizer reports; kyua then sees a test program that wrote to
 * stderr while listing its cases and calls it broken.  Only the functions
 * that build that list are named: a leak in a test body still shows,
 * though its stack passes through libatf-c's runner.
 */

const char	*__lsan_default_suppressions(void);
const char	*__lsan_default_options(void);

const char *
__lsan_default_suppressions(void)
{
	return "leak:atf_tp_get_tcs\n"
	    "leak:atf_map_init_charpp\n"
	    "leak:atf_map_insert\n"
	    "leak:atf_list_init\n"
	    "leak:atf_list_append\n";
}

const char *
__lsan_default_options(void)
{
	return "print_suppressions=0";
}
