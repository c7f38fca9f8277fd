/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * What the two forwarders share, so that they take the same options and
 * print the same statistics: the DPDK application (l2fwd-af-xdp,
 * l2fwd_af_xdp.c) and the kernel twin's loader (l2fwd-xdp, l2fwd_xdp.c).
 * No DPDK, no libbpf here.
 */

#ifndef L2FWD_COMMON_H
#define L2FWD_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define L2FWD_ETH_ALEN	6

#define L2FWD_XSTR(x)	#x
#define L2FWD_STR(x)	L2FWD_XSTR(x)

/* Exit statuses of both programs. */
#define L2FWD_EXIT_OK		0
#define L2FWD_EXIT_RUNTIME	1	/* set-up or forwarding failed */
#define L2FWD_EXIT_USAGE	2	/* bad options: nothing was attached */

/* Statistics period (-T), seconds; DPDK's l2fwd caps it at a day too. */
#define L2FWD_DEFAULT_PERIOD	1
#define L2FWD_MAX_PERIOD	86400

/* Most ports a statistics report covers (both programs stay below). */
#define L2FWD_REPORT_MAX_PORTS	64

/* Default destination MAC of frames sent out of port N: 02:00:00:00:00:N,
 * DPDK l2fwd's convention (a locally administered address). */
void l2fwd_default_peer_mac(unsigned int port, uint8_t mac[L2FWD_ETH_ALEN]);

/* "xx:xx:xx:xx:xx:xx" (or with '-'), two hex digits each: 0 or -EINVAL. */
int l2fwd_parse_mac(const char *text, uint8_t mac[L2FWD_ETH_ALEN]);

/* "aa:bb:cc:dd:ee:ff" into buf (at least 18 bytes); returns buf. */
const char *l2fwd_format_mac(const uint8_t mac[L2FWD_ETH_ALEN], char *buf);

/* A decimal number without sign, spaces or trailing characters, in
 * [min, max]: 0, or -EINVAL (not a number) / -ERANGE (out of range). */
int l2fwd_parse_uint(const char *text, unsigned long long min, unsigned long long max,
		     unsigned long long *value);

/* A non-negative decimal number of seconds ("2", "0.5"), at most max. */
int l2fwd_parse_seconds(const char *text, double max, double *value);

/* --peer-mac PORT,MAC: splits at the last ','; the port part is copied
 * into port (NUL-terminated, at most port_size - 1 characters).  0 or
 * -EINVAL, with *why set to what is wrong. */
int l2fwd_parse_peer_mac(const char *arg, char *port, size_t port_size,
			 uint8_t mac[L2FWD_ETH_ALEN], const char **why);

/* "SIGINT", "SIGTERM", "SIGHUP", else "signal N" (in a static buffer). */
const char *l2fwd_signal_name(int sig);

/* Monotonic time in seconds. */
double l2fwd_now(void);

/* Counters of one port.  rx: frames received on the port; tx: frames
 * handed to the port's transmit; dropped: frames that should have gone
 * out of the port but were not taken by its transmit. */
struct l2fwd_counts {
	uint64_t rx;
	uint64_t tx;
	uint64_t dropped;
};

/* The periodic and final statistics, printed alike by both programs. */
struct l2fwd_report {
	const char *program;		/* "l2fwd-af-xdp", "l2fwd-xdp" */
	bool json;			/* one JSON object per line instead of a table */
	unsigned int nb_ports;
	unsigned int port_id[L2FWD_REPORT_MAX_PORTS];
	char name[L2FWD_REPORT_MAX_PORTS][48];
	struct l2fwd_counts last[L2FWD_REPORT_MAX_PORTS];
	double start;			/* l2fwd_now() when forwarding started */
	double last_time;
};

/* Forwarding starts now: counters are taken to be 0. */
void l2fwd_report_start(struct l2fwd_report *r);

/* Print the counters (cumulative, one entry per port in report order):
 * totals and, per period, the rates since the last report; with final,
 * the rates averaged over the whole run. */
void l2fwd_report_print(struct l2fwd_report *r, FILE *out, const struct l2fwd_counts *now,
			bool final);

#endif /* L2FWD_COMMON_H */
