/*
 * The http source: libcurl with `curl -f` semantics, many transfers at once
 * through one multi handle.
 *
 * Each job is a small state machine: waiting (until its backoff expires), running,
 * done. The loop starts waiting jobs while fewer than `jobs` run, lets curl work,
 * and sorts finished transfers into success, retry or failure:
 *
 *   - 2xx: the body is the file (validation is the caller's business);
 *   - 5xx, 408, 429, timeouts, stalls, refused or reset connections, truncated
 *     bodies: retried with exponential backoff; a Retry-After header (capped) is
 *     honoured when longer than the backoff;
 *   - other 4xx, TLS failures, redirect loops, DNS failures, a body past the size
 *     cap: final at once, since asking again cannot change the answer.
 *
 * An error response's body is never kept: the write callback aborts the transfer
 * on its first byte (headers, including Retry-After, are complete by then). The
 * size cap is checked on the decoded bytes as they arrive, so neither a lying
 * Content-Length nor a compression bomb gets past it.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/error.h"
#include "core/pgci_version.h"
#include "upstream/curl_api.h"
#include "upstream/source.h"

enum { X_WAITING, X_RUNNING, X_DONE };

typedef struct xfer {
    const curl_api *api;
    http_job *job;
    CURL *h;
    int state;
    long long not_before; /* monotonic ms before which a retry may not start */
    int over_cap;         /* the write callback stopped a body past max_bytes */
    int http_error;       /* the write callback stopped an error response */
    int stalled;          /* the progress callback stopped a transfer with no data */
    long long last_data;  /* monotonic ms of the last byte received (or the start) */
    curl_off_t last_now;  /* bytes received at last_data */
    long long stall_ms;
    size_t max_bytes;
    char errbuf[CURL_ERROR_SIZE];
} xfer;

void http_url(strbuf *out, const char *tmpl, const char *tag, const char *path)
{
    for (const char *s = tmpl; *s;) {
        if (!strncmp(s, "{tag}", 5)) {
            strbuf_adds(out, tag);
            s += 5;
        } else if (!strncmp(s, "{path}", 6)) {
            strbuf_adds(out, path);
            s += 6;
        } else {
            strbuf_addc(out, *s++);
        }
    }
}

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
    xfer *x = arg;
    const curl_api *C = x->api;
    size_t len = size * n;
    long status = 0;
    C->easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &status);
    if (status >= 300 && status < 400)
        return len; /* the body of a redirect being followed: not ours */
    if (status >= 400 || status < 200) {
        x->http_error = 1;
        return 0;
    }
    if (x->job->body.len + len > x->max_bytes) {
        x->over_cap = 1;
        return 0;
    }
    strbuf_add(&x->job->body, data, len);
    return len;
}

/* curl's own low-speed check averages over several seconds, so a body that stops
 * after a burst goes unnoticed for a while; this stops it after exactly stall_ms
 * without a byte (before the headers as well as in the body). */
static int on_progress(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow)
{
    (void)dltotal;
    (void)ultotal;
    (void)ulnow;
    xfer *x = arg;
    long long now = (long long)now_ms();
    if (dlnow != x->last_now) {
        x->last_now = dlnow;
        x->last_data = now;
        return 0;
    }
    if (now - x->last_data >= x->stall_ms) {
        x->stalled = 1;
        return 1;
    }
    return 0;
}

static int start(CURLM *m, xfer *x, const http_params *p)
{
    const curl_api *C = x->api;
    CURL *h = C->easy_init();
    if (!h)
        return pgci_error_set(PGCI_ENET, "cannot start a transfer (curl_easy_init failed)");
    x->h = h;
    x->over_cap = x->http_error = x->stalled = 0;
    x->last_data = (long long)now_ms();
    x->last_now = 0;
    x->stall_ms = p->stall_timeout_ms;
    x->errbuf[0] = '\0';
    x->max_bytes = p->max_bytes;
    strbuf_reset(&x->job->body);
    C->easy_setopt(h, CURLOPT_URL, x->job->url);
    C->easy_setopt(h, CURLOPT_PRIVATE, x);
    C->easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    C->easy_setopt(h, CURLOPT_WRITEDATA, x);
    C->easy_setopt(h, CURLOPT_ERRORBUFFER, x->errbuf);
    C->easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    C->easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
    C->easy_setopt(h, CURLOPT_MAXREDIRS, 10L);
    C->easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    C->easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    C->easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
    C->easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
    if (p->ca_file)
        C->easy_setopt(h, CURLOPT_CAINFO, p->ca_file);
    C->easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, p->connect_timeout_ms);
    C->easy_setopt(h, CURLOPT_TIMEOUT_MS, p->total_timeout_ms);
    C->easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    C->easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
    C->easy_setopt(h, CURLOPT_XFERINFODATA, x);
    C->easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)p->max_bytes);
    C->easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
    C->easy_setopt(h, CURLOPT_USERAGENT, "pgci/" PGCI_VERSION);
    if (C->multi_add_handle(m, h) != CURLM_OK) {
        C->easy_cleanup(h);
        x->h = NULL;
        return pgci_error_set(PGCI_ENET, "cannot start a transfer (curl_multi_add_handle)");
    }
    x->state = X_RUNNING;
    x->job->attempts++;
    return 0;
}

static int transient_curl_error(CURLcode rc)
{
    switch (rc) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
        return 1;
    default:
        return 0;
    }
}

static int transient_status(long status)
{
    return status >= 500 || status == 408 || status == 429;
}

static void finish(xfer *x, int code, char *why)
{
    x->state = X_DONE;
    x->job->code = code;
    free(x->job->why);
    x->job->why = why;
    if (code < 0)
        strbuf_reset(&x->job->body);
}

/* Sorts out a finished attempt: done (success or final failure) or back to waiting. */
static void settle(xfer *x, CURLcode rc, const http_params *p)
{
    const curl_api *C = x->api;
    long status = 0;
    C->easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &status);
    curl_off_t retry_after = -1;
    C->easy_getinfo(x->h, CURLINFO_RETRY_AFTER, &retry_after);
    int transient = 0, code = PGCI_ENET;
    char *why;
    if (x->over_cap || rc == CURLE_FILESIZE_EXCEEDED) {
        code = PGCI_ELIMIT;
        why = pgci_asprintf("the body is over the %zu-byte size cap", p->max_bytes);
    } else if (x->stalled) {
        transient = 1;
        why = pgci_asprintf("no data for %lld ms (stalled after %lld bytes)", x->stall_ms,
                            (long long)x->last_now);
    } else if (x->http_error || (rc == CURLE_OK && (status < 200 || status >= 300))) {
        transient = transient_status(status);
        if (status >= 300 && status < 400)
            why = pgci_asprintf("HTTP %ld (a redirect without a usable Location)", status);
        else
            why = pgci_asprintf("HTTP %ld", status);
    } else if (rc != CURLE_OK) {
        transient = transient_curl_error(rc);
        why = pgci_asprintf("%s (curl error %d)", x->errbuf[0] ? x->errbuf : C->easy_strerror(rc),
                            (int)rc);
    } else {
        finish(x, 0, NULL);
        return;
    }
    int attempts = x->job->attempts;
    if (!transient || attempts > p->retries) {
        if (attempts > 1) {
            char *w = pgci_asprintf("%s, after %d attempts", why, attempts);
            free(why);
            why = w;
        }
        finish(x, code, why);
        return;
    }
    free(why);
    /* exponential, but never more than 30 s between two attempts of the backoff's own
     * making (a server's Retry-After has its own cap) */
    long long delay = p->retry_delay_ms,
              cap = p->retry_delay_ms > 30000 ? p->retry_delay_ms : 30000;
    for (int i = 1; i < attempts && delay < cap; i++)
        delay *= 2;
    if (delay > cap)
        delay = cap;
    if (retry_after >= 0) {
        long long ra = (long long)retry_after * 1000;
        if (ra > p->retry_after_max_ms)
            ra = p->retry_after_max_ms;
        if (ra > delay)
            delay = ra;
    }
    x->state = X_WAITING;
    x->not_before = (long long)now_ms() + delay;
    strbuf_reset(&x->job->body);
}

size_t http_fetch_jobs(const http_params *p, http_job *jobs, size_t n, http_done_fn done_fn,
                       void *arg)
{
    size_t requests = 0;
    if (n == 0)
        return 0;
    const curl_api *C = curl_api_get();
    xfer *xs = pgci_calloc(n, sizeof(*xs));
    for (size_t i = 0; i < n; i++) {
        xs[i].api = C;
        xs[i].job = &jobs[i];
        xs[i].state = X_WAITING;
        jobs[i].code = 0;
        jobs[i].attempts = 0;
    }
    CURLM *m = C ? C->multi_init() : NULL;
    if (!m) {
        /* no libcurl (the error says why) or no multi handle: every job fails */
        char *why = pgci_strdup(C ? "curl_multi_init failed" : pgci_error_last());
        for (size_t i = 0; i < n; i++) {
            finish(&xs[i], C ? PGCI_ENET : PGCI_EIO, pgci_strdup(why));
            if (done_fn)
                done_fn(arg, i);
        }
        free(why);
        free(xs);
        return 0;
    }
    int max_running = p->jobs > 0 ? p->jobs : 1;
    C->multi_setopt(m, CURLMOPT_MAX_HOST_CONNECTIONS, (long)max_running);
    size_t done = 0;
    while (done < n) {
        long long now = (long long)now_ms();
        int running = 0;
        for (size_t i = 0; i < n; i++)
            running += xs[i].state == X_RUNNING;
        for (size_t i = 0; i < n && running < max_running; i++) {
            if (xs[i].state != X_WAITING)
                continue;
            if (xs[i].not_before > now)
                continue;
            if (start(m, &xs[i], p) < 0) {
                finish(&xs[i], PGCI_ENET, pgci_strdup(pgci_error_last()));
                done++;
                if (done_fn)
                    done_fn(arg, i);
                continue;
            }
            requests++;
            running++;
        }
        int still = 0;
        C->multi_perform(m, &still);
        CURLMsg *msg;
        int left;
        while ((msg = C->multi_info_read(m, &left))) {
            if (msg->msg != CURLMSG_DONE)
                continue;
            char *priv = NULL;
            C->easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &priv);
            xfer *x = (xfer *)priv;
            CURLcode rc = msg->data.result;
            C->multi_remove_handle(m, x->h);
            settle(x, rc, p);
            C->easy_cleanup(x->h);
            x->h = NULL;
            if (x->state == X_DONE) {
                done++;
                if (done_fn)
                    done_fn(arg, (size_t)(x - xs));
            }
        }
        if (done == n)
            break;
        /* wait for socket activity, but no longer than until the next retry is due */
        long long wait = 1000;
        now = (long long)now_ms();
        running = 0;
        for (size_t i = 0; i < n; i++)
            running += xs[i].state == X_RUNNING;
        for (size_t i = 0; i < n && running < max_running; i++) {
            if (xs[i].state != X_WAITING)
                continue;
            long long d = xs[i].not_before - now;
            d = d < 0 ? 0 : d;
            wait = d < wait ? d : wait;
        }
        C->multi_poll(m, NULL, 0, (int)wait, NULL);
    }
    C->multi_cleanup(m);
    free(xs);
    return requests;
}
