/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * Options and statistics shared by l2fwd-af-xdp and l2fwd-xdp (see
 * l2fwd_common.h).
 */

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "l2fwd_common.h"

void
l2fwd_default_peer_mac(unsigned int port, uint8_t mac[L2FWD_ETH_ALEN])
{
	static const uint8_t base[L2FWD_ETH_ALEN] = { 0x02, 0, 0, 0, 0, 0 };

	memcpy(mac, base, L2FWD_ETH_ALEN);
	mac[5] = (uint8_t)port;
}

static int
hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int
l2fwd_parse_mac(const char *text, uint8_t mac[L2FWD_ETH_ALEN])
{
	const char *p = text;

	for (int i = 0; i < L2FWD_ETH_ALEN; i++) {
		int hi = hex_digit(p[0]), lo = hi < 0 ? -1 : hex_digit(p[1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		mac[i] = (uint8_t)(hi << 4 | lo);
		p += 2;
		if (i < L2FWD_ETH_ALEN - 1) {
			if (*p != ':' && *p != '-')
				return -EINVAL;
			p++;
		}
	}
	return *p == '\0' ? 0 : -EINVAL;
}

const char *
l2fwd_format_mac(const uint8_t mac[L2FWD_ETH_ALEN], char *buf)
{
	snprintf(buf, 18, "%02x:%02x:%02x:%02x:%02x:%02x",
		 mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
	return buf;
}

int
l2fwd_parse_uint(const char *text, unsigned long long min, unsigned long long max,
		 unsigned long long *value)
{
	unsigned long long v;
	char *end;

	/* strtoull accepts spaces and a sign: refuse them. */
	if (!isdigit((unsigned char)text[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (*end != '\0')
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*value = v;
	return 0;
}

int
l2fwd_parse_seconds(const char *text, double max, double *value)
{
	double v;
	char *end;

	if (!isdigit((unsigned char)text[0]))
		return -EINVAL;
	errno = 0;
	v = strtod(text, &end);
	if (*end != '\0' || errno == ERANGE)
		return -EINVAL;
	if (!(v >= 0 && v <= max))	/* also refuses NaN */
		return -ERANGE;
	*value = v;
	return 0;
}

int
l2fwd_parse_peer_mac(const char *arg, char *port, size_t port_size,
		     uint8_t mac[L2FWD_ETH_ALEN], const char **why)
{
	const char *comma = strrchr(arg, ',');
	size_t len;

	if (!comma) {
		*why = "expected PORT,MAC (e.g. 0,02:00:00:00:00:01)";
		return -EINVAL;
	}
	len = (size_t)(comma - arg);
	if (len == 0) {
		*why = "no port before the ','";
		return -EINVAL;
	}
	if (len >= port_size) {
		*why = "port too long";
		return -EINVAL;
	}
	if (l2fwd_parse_mac(comma + 1, mac) < 0) {
		*why = "not a MAC address after the ',' (expected xx:xx:xx:xx:xx:xx)";
		return -EINVAL;
	}
	memcpy(port, arg, len);
	port[len] = '\0';
	return 0;
}

const char *
l2fwd_signal_name(int sig)
{
	static char buf[24];

	switch (sig) {
	case SIGINT:
		return "SIGINT";
	case SIGTERM:
		return "SIGTERM";
	case SIGHUP:
		return "SIGHUP";
	default:
		snprintf(buf, sizeof(buf), "signal %d", sig);
		return buf;
	}
}

double
l2fwd_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void
l2fwd_report_start(struct l2fwd_report *r)
{
	r->start = r->last_time = l2fwd_now();
	memset(r->last, 0, sizeof(r->last));
}

static double
mpps(uint64_t packets, double seconds)
{
	return seconds > 0 ? (double)packets / seconds / 1e6 : 0.0;
}

/* Interface names may hold '"' and '\\'. */
static void
json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void
json_counts(FILE *out, const struct l2fwd_counts *c, const struct l2fwd_counts *base,
	    double seconds)
{
	fprintf(out, "\"rx\":%" PRIu64 ",\"tx\":%" PRIu64 ",\"dropped\":%" PRIu64
		",\"rx_mpps\":%.6f,\"tx_mpps\":%.6f",
		c->rx, c->tx, c->dropped,
		mpps(c->rx - base->rx, seconds), mpps(c->tx - base->tx, seconds));
}

static void
text_line(FILE *out, const char *port, const char *name, const struct l2fwd_counts *c,
	  const struct l2fwd_counts *base, double seconds)
{
	fprintf(out, "%4s  %-24s %14" PRIu64 " %14" PRIu64 " %12" PRIu64 " %9.3f %9.3f\n",
		port, name, c->rx, c->tx, c->dropped,
		mpps(c->rx - base->rx, seconds), mpps(c->tx - base->tx, seconds));
}

void
l2fwd_report_print(struct l2fwd_report *r, FILE *out, const struct l2fwd_counts *now,
		   bool final)
{
	static const struct l2fwd_counts zero;
	struct l2fwd_counts total = zero, last_total = zero;
	double t = l2fwd_now();
	double elapsed = t - r->start;
	/* Rates: since the last report, or over the whole run at the end. */
	double seconds = final ? elapsed : t - r->last_time;
	const struct l2fwd_counts *base = final ? NULL : r->last;

	for (unsigned int i = 0; i < r->nb_ports; i++) {
		total.rx += now[i].rx;
		total.tx += now[i].tx;
		total.dropped += now[i].dropped;
		if (base) {
			last_total.rx += base[i].rx;
			last_total.tx += base[i].tx;
			last_total.dropped += base[i].dropped;
		}
	}

	if (r->json) {
		fprintf(out, "{\"program\":\"%s\",\"final\":%s,\"time_s\":%.3f,\"interval_s\":%.3f,"
			"\"ports\":[", r->program, final ? "true" : "false", elapsed, seconds);
		for (unsigned int i = 0; i < r->nb_ports; i++) {
			fprintf(out, "%s{\"port\":%u,\"name\":", i ? "," : "", r->port_id[i]);
			json_string(out, r->name[i]);
			fputc(',', out);
			json_counts(out, &now[i], base ? &base[i] : &zero, seconds);
			fputc('}', out);
		}
		fputs("],\"total\":{", out);
		json_counts(out, &total, &last_total, seconds);
		fputs("}}\n", out);
	} else {
		if (final)
			fprintf(out, "\n%s final statistics after %.1f s (Mpps: averages over the run)\n",
				r->program, elapsed);
		else
			fprintf(out, "\n%s statistics at %.1f s (Mpps: last %.1f s)\n",
				r->program, elapsed, seconds);
		fprintf(out, "%4s  %-24s %14s %14s %12s %9s %9s\n",
			"port", "name", "rx", "tx", "dropped", "rx-Mpps", "tx-Mpps");
		for (unsigned int i = 0; i < r->nb_ports; i++) {
			char id[16];

			snprintf(id, sizeof(id), "%u", r->port_id[i]);
			text_line(out, id, r->name[i], &now[i], base ? &base[i] : &zero, seconds);
		}
		text_line(out, "all", "", &total, &last_total, seconds);
	}
	fflush(out);

	memcpy(r->last, now, r->nb_ports * sizeof(*now));
	r->last_time = t;
}
