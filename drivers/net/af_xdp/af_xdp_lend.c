/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * What a started port lends to secondary processes: af_xdp_lend.h.  One
 * lock for every port of the process: it is taken for a list walk and a
 * few dup() calls, by a port's start and stop and by each request of a
 * secondary, none of them on a datapath.
 */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <unistd.h>

#include <rte_ethdev.h>
#include <rte_string_fns.h>

#include "af_xdp_lend.h"

struct lent {
	TAILQ_ENTRY(lent) next;
	char port[RTE_ETH_NAME_MAX_LEN];
	int fallbacks_fd;
	uint16_t n;
	int fds[];
};

static TAILQ_HEAD(, lent) lent_list = TAILQ_HEAD_INITIALIZER(lent_list);
static pthread_mutex_t lent_lock = PTHREAD_MUTEX_INITIALIZER;

/* Under lent_lock. */
static struct lent *
find(const char *port)
{
	struct lent *l;

	TAILQ_FOREACH(l, &lent_list, next)
		if (strcmp(l->port, port) == 0)
			return l;
	return NULL;
}

/* Under lent_lock: unlinks port's entry and returns it for freeing. */
static struct lent *
unlink_port(const char *port)
{
	struct lent *l = find(port);

	if (l != NULL)
		TAILQ_REMOVE(&lent_list, l, next);
	return l;
}

int
af_xdp_lend_publish(const char *port, const int *fds, uint16_t n, int fallbacks_fd)
{
	struct lent *l = malloc(sizeof(*l) + n * sizeof(l->fds[0]));
	struct lent *old;

	if (l != NULL) {
		strlcpy(l->port, port, sizeof(l->port));
		l->fallbacks_fd = fallbacks_fd;
		l->n = n;
		memcpy(l->fds, fds, n * sizeof(l->fds[0]));
	}
	pthread_mutex_lock(&lent_lock);
	old = unlink_port(port);
	if (l != NULL)
		TAILQ_INSERT_TAIL(&lent_list, l, next);
	pthread_mutex_unlock(&lent_lock);
	free(old);
	return l != NULL ? 0 : -ENOMEM;
}

void
af_xdp_lend_withdraw(const char *port)
{
	struct lent *l;

	pthread_mutex_lock(&lent_lock);
	l = unlink_port(port);
	pthread_mutex_unlock(&lent_lock);
	free(l);
}

static int
copy_fd(int fd)
{
	if (fd < 0)
		return -1;
	fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	return fd >= 0 ? fd : -errno;
}

int
af_xdp_lend_fds(const char *port, uint16_t first, uint16_t max, int *fds)
{
	const struct lent *l;
	int i, n = 0, ret = 0;

	pthread_mutex_lock(&lent_lock);
	l = find(port);
	if (l == NULL)
		ret = -ENOENT;
	else if (first < l->n)
		n = RTE_MIN(max, (uint16_t)(l->n - first));
	for (i = 0; i < n && ret == 0; i++) {
		fds[i] = copy_fd(l->fds[first + i]);
		if (fds[i] < -1)
			ret = fds[i];
	}
	pthread_mutex_unlock(&lent_lock);
	if (ret == 0)
		return n;
	while (--i >= 0) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
	return ret;
}

int
af_xdp_lend_fallbacks_fd(const char *port, int *fd)
{
	const struct lent *l;
	int ret = 0;

	*fd = -1;
	pthread_mutex_lock(&lent_lock);
	l = find(port);
	if (l == NULL)
		ret = -ENOENT;
	else
		*fd = copy_fd(l->fallbacks_fd);
	pthread_mutex_unlock(&lent_lock);
	if (*fd < -1) {
		ret = *fd;
		*fd = -1;
	}
	return ret;
}
