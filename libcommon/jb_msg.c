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
	case IMSG_CHILD_READY:	return "CHILD_READY";
	case IMSG_STATUS_REQ:	return "STATUS_REQ";
	case IMSG_STATUS:		return "STATUS";
	case IMSG_TEST_ATTEMPT:	return "TEST_ATTEMPT";
	case IMSG_TEST_RESULT:	return "TEST_RESULT";
	case IMSG_DONE:		return "DONE";
	case IMSG_PROGRESS:		return "PROGRESS";
	case IMSG_INCUS_LIST:	return "INCUS_LIST";
	case IMSG_INCUS_INSTANCE:	return "INCUS_INSTANCE";
	case IMSG_INCUS_CREATE:	return "INCUS_CREATE";
	case IMSG_INCUS_ACTION:	return "INCUS_ACTION";
	case IMSG_INCUS_SNAPSHOT:	return "INCUS_SNAPSHOT";
	case IMSG_INCUS_EXEC:	return "INCUS_EXEC";
	case IMSG_INCUS_EXEC_FD:	return "INCUS_EXEC_FD";
	case IMSG_INCUS_OUTPUT:	return "INCUS_OUTPUT";
	case IMSG_INCUS_RESIZE:	return "INCUS_RESIZE";
	case IMSG_INCUS_EXIT:	return "INCUS_EXIT";
	case IMSG_INCUS_NETINFO:	return "INCUS_NETINFO";
	case IMSG_INCUS_IMAGE_IMPORT:	return "INCUS_IMAGE_IMPORT";
	case IMSG_INCUS_IMAGES:		return "INCUS_IMAGES";
	case IMSG_INCUS_IMAGE:		return "INCUS_IMAGE";
	case IMSG_INCUS_IMAGE_PRUNE:	return "INCUS_IMAGE_PRUNE";
	case IMSG_MOUNTD_REPO:	return "MOUNTD_REPO";
	case IMSG_MOUNTD_REPO_INFO:	return "MOUNTD_REPO_INFO";
	case IMSG_SSHD_LISTEN:	return "SSHD_LISTEN";
	case IMSG_SSHD_SESSION:	return "SSHD_SESSION";
	case IMSG_SSHD_AUTH:	return "SSHD_AUTH";
	case IMSG_SSHD_VERDICT:	return "SSHD_VERDICT";
	case IMSG_SSHD_ENV:		return "SSHD_ENV";
	case IMSG_SSHD_EXEC:	return "SSHD_EXEC";
	case IMSG_SSHD_REFUSED:	return "SSHD_REFUSED";
	case IMSG_SSHD_DRAIN:	return "SSHD_DRAIN";
	case IMSG_MOUNTD_CHECK:		return "MOUNTD_CHECK";
	case IMSG_MOUNTD_CHECKED:	return "MOUNTD_CHECKED";
	case IMSG_MOUNTD_VERIFY:	return "MOUNTD_VERIFY";
	case IMSG_MOUNTD_RELEASE:	return "MOUNTD_RELEASE";
	case IMSG_MOUNTD_DEADLINE_SET:	return "MOUNTD_DEADLINE_SET";
	case IMSG_MOUNTD_DEADLINE_CLEAR: return "MOUNTD_DEADLINE_CLEAR";
	case IMSG_MOUNTD_DEADLINE_LIST:	return "MOUNTD_DEADLINE_LIST";
	case IMSG_MOUNTD_DEADLINE:	return "MOUNTD_DEADLINE";
	case IMSG_MOUNTD_EXPIRED:	return "MOUNTD_EXPIRED";
	case IMSG_MOUNTD_SSH_SEED:	return "MOUNTD_SSH_SEED";
	case IMSG_MOUNTD_SSH_DIR:	return "MOUNTD_SSH_DIR";
	case IMSG_MOUNTD_RESOLVE:	return "MOUNTD_RESOLVE";
	case IMSG_MOUNTD_RESOLVED:	return "MOUNTD_RESOLVED";
	case IMSG_MOUNTD_RECHECK:	return "MOUNTD_RECHECK";
	case IMSG_INCUS_DISK_ADD:	return "INCUS_DISK_ADD";
	case IMSG_INCUS_DISK_REMOVE:	return "INCUS_DISK_REMOVE";
	case IMSG_INCUS_DISK_LIST:	return "INCUS_DISK_LIST";
	case IMSG_INCUS_DISK:		return "INCUS_DISK";
	case IMSG_INCUS_HOSTS:		return "INCUS_HOSTS";
	case IMSG_CTL_MOUNT:		return "CTL_MOUNT";
	case IMSG_MOUNTD_IMAGE_OPEN:	return "MOUNTD_IMAGE_OPEN";
	case IMSG_MOUNTD_IMAGE_FD:	return "MOUNTD_IMAGE_FD";
	case IMSG_NETD_SET:		return "NETD_SET";
	case IMSG_NETD_EGRESS:		return "NETD_EGRESS";
	case IMSG_NETD_MODES:		return "NETD_MODES";
	case IMSG_NETD_MODE_ENTRY:	return "NETD_MODE_ENTRY";
	case IMSG_NETD_SYNC_FORGET:	return "NETD_SYNC_FORGET";
	case IMSG_NETD_REFRESH:		return "NETD_REFRESH";
	case IMSG_NETD_PIN:		return "NETD_PIN";
	case IMSG_NETD_PINNED:		return "NETD_PINNED";
	case IMSG_NETD_STOP:		return "NETD_STOP";
	case IMSG_NETD_FORGET:	return "NETD_FORGET";
	case IMSG_NETD_MODE:		return "NETD_MODE";
	case IMSG_NETD_STATUS:	return "NETD_STATUS";
	case IMSG_NETD_STATUS_LINE:	return "NETD_STATUS_LINE";
	case IMSG_CTL_STATUS:	return "CTL_STATUS";
	case IMSG_CTL_STATUS_ENTRY:	return "CTL_STATUS_ENTRY";
	case IMSG_CTL_VERSION:	return "CTL_VERSION";
	case IMSG_CTL_VERSION_REPLY:	return "CTL_VERSION_REPLY";
	case IMSG_CTL_ERROR:		return "CTL_ERROR";
	case IMSG_CTL_END:		return "CTL_END";
	case IMSG_CTL_TEST_ATTEMPT:	return "CTL_TEST_ATTEMPT";
	case IMSG_CTL_TEST_RESULT:	return "CTL_TEST_RESULT";
	case IMSG_CTL_CMD:		return "CTL_CMD";
	case IMSG_CTL_PROGRESS:	return "CTL_PROGRESS";
	case IMSG_CTL_INSTANCE:	return "CTL_INSTANCE";
	case IMSG_CTL_SNAPSHOT:	return "CTL_SNAPSHOT";
	case IMSG_CTL_OUTPUT:	return "CTL_OUTPUT";
	case IMSG_CTL_EXEC_FD:	return "CTL_EXEC_FD";
	case IMSG_CTL_WINSIZE:	return "CTL_WINSIZE";
	case IMSG_CTL_EXIT:		return "CTL_EXIT";
	case IMSG_CTL_IMAGE:		return "CTL_IMAGE";
	}
	return "unknown";
}
