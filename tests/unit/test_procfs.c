// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* /proc access (tools/lib/procfs.h): this process and its threads, a
 * process that does not exist, and status fields from text */
#include "unit.h"
#include "procfs.h"
#include "opts.h"
#include <pthread.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

static pthread_mutex_t hold = PTHREAD_MUTEX_INITIALIZER;

static void *waiter(void *arg)
{
	pthread_mutex_lock(&hold);
	pthread_mutex_unlock(&hold);
	return arg;
}

int main(void)
{
	const char *status = "Name:\tVmRSS: 666 kB\nUmask:\t0022\nState:\tS (sleeping)\n"
			     "Tgid:\t4321\nVmRSS:\t  1234 kB\n"
			     "Cpus_allowed_list:\t0-3,7\nvoluntary_ctxt_switches:\t9\n"
			     "nonvoluntary_ctxt_switches:\t12\n";
	struct id_list pids = { 0 }, tids = { 0 }, skip = { 0 };
	uint32_t me = getpid();
	char comm[64], buf[64];
	pthread_t t;

	CHECK(pid_alive(me), "this process is alive");
	CHECK(!pid_alive(0x7ffffff0), "a process that does not exist is not");
	prctl(PR_SET_NAME, "procfs\ttest");
	task_comm(me, comm, sizeof(comm));
	CHECK_STR(comm, "procfs\ttest", "comm: raw, without its newline");
	task_comm(0x7ffffff0, comm, sizeof(comm));
	CHECK_STR(comm, "[exited]", "comm of a task that is gone");
	CHECK(proc_read(buf, 4, "/proc/%u/comm", me) == 3 && !strcmp(buf, "pro"),
	      "proc_read: bounded by the buffer");
	CHECK(proc_read(buf, sizeof(buf), "/proc/%u/comm", 0x7ffffff0) == -1,
	      "proc_read: -1 when unreadable");

	id_list_add_pids(&pids);
	CHECK(id_list_has(&pids, me) && id_list_has(&pids, 1), "id_list_add_pids: init and this one");
	pthread_mutex_lock(&hold);
	pthread_create(&t, NULL, waiter, NULL);
	CHECK(!id_list_add_threads(me, NULL, &tids) && tids.n == 2 && id_list_has(&tids, me),
	      "id_list_add_threads: both threads of this process");
	tids.n = 0;
	id_list_add(&skip, me);
	CHECK(!id_list_add_threads(me, &skip, &tids) && tids.n == 1 && !id_list_has(&tids, me),
	      "id_list_add_threads: skip left out");
	pthread_mutex_unlock(&hold);
	pthread_join(t, NULL);
	CHECK(id_list_add_threads(0x7ffffff0, NULL, &tids) == -1, "id_list_add_threads of no process: -1");

	CHECK(status_u64(status, "Tgid") == 4321, "status: Tgid");
	CHECK(status_u64(status, "VmRSS") == 1234, "status: a field, not a name that looks like one");
	CHECK(status_u64(status, "nonvoluntary_ctxt_switches") == 12 &&
	      status_u64(status, "voluntary_ctxt_switches") == 9, "status: names that end alike");
	CHECK(!strncmp(status_field(status, "Cpus_allowed_list"), "0-3,7\n", 6),
	      "status: the text of a field, blanks skipped");
	CHECK(!status_field(status, "VmLck") && !status_u64(status, "VmLck"),
	      "status: a missing field");
	CHECK_STR(status_field(status, "Name"), "VmRSS: 666 kB\nUmask:\t0022\nState:\tS (sleeping)\n"
		  "Tgid:\t4321\nVmRSS:\t  1234 kB\nCpus_allowed_list:\t0-3,7\n"
		  "voluntary_ctxt_switches:\t9\nnonvoluntary_ctxt_switches:\t12\n",
		  "status: the first line");
	{
		struct proc_lines pl;
		size_t lines = 0, ended = 0;
		char *line;

		CHECK(!proc_lines_open(&pl, "/proc/%u/maps", me), "proc_lines: opens this one's maps");
		while ((line = proc_lines_next(&pl))) {
			lines++;
			ended += strchr(line, '\n') != NULL;
		}
		CHECK(lines > 3 && ended == lines && !pl.f, "proc_lines: every line, then closed");
		CHECK(proc_lines_open(&pl, "/proc/%u/maps", 0x7ffffff0) == -1 && !pl.f,
		      "proc_lines of no process: -1");
		CHECK(!proc_lines_open(&pl, "/proc/%u/maps", me) && proc_lines_next(&pl),
		      "proc_lines: a first line");
		proc_lines_close(&pl);
		CHECK(!pl.f && !pl.line, "proc_lines_close: ends it early");
	}
	id_list_free(&pids);
	id_list_free(&tids);
	id_list_free(&skip);
	return unit_exit();
}
