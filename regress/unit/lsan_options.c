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
 * libatf-c keeps its list of test cases until exit, which LeakSanitizer
 * reports; kyua then sees a test program that wrote to stderr while
 * listing its cases and calls it broken.  The leak is libatf-c's, not
 * ours, so it alone is suppressed.
 */

const char	*__lsan_default_suppressions(void);
const char	*__lsan_default_options(void);

const char *
__lsan_default_suppressions(void)
{
	return "leak:libatf-c\n";
}

const char *
__lsan_default_options(void)
{
	return "print_suppressions=0";
}
