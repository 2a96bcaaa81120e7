/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include "jb_msg.h"

const char *
jb_imsg_name(uint32_t type)
{
	switch (type) {
	case IMSG_CHILD_READY:		return "CHILD_READY";
	case IMSG_STATUS_REQ:		return "STATUS_REQ";
	case IMSG_STATUS:		return "STATUS";
	case IMSG_TEST_ATTEMPT:		return "TEST_ATTEMPT";
	case IMSG_TEST_RESULT:		return "TEST_RESULT";
	case IMSG_CTL_TEST_ATTEMPT:	return "CTL_TEST_ATTEMPT";
	case IMSG_CTL_TEST_RESULT:	return "CTL_TEST_RESULT";
	case IMSG_CTL_STATUS:		return "CTL_STATUS";
	case IMSG_CTL_STATUS_ENTRY:	return "CTL_STATUS_ENTRY";
	case IMSG_CTL_VERSION:		return "CTL_VERSION";
	case IMSG_CTL_VERSION_REPLY:	return "CTL_VERSION_REPLY";
	case IMSG_CTL_ERROR:		return "CTL_ERROR";
	case IMSG_CTL_END:		return "CTL_END";
	}
	return "unknown";
}
