/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The C edge of fabricfit's core, for the Slurm glue. Every function returns a status
 * code and fills `err` with a message on failure; no C++ exception crosses it.
 */
#ifndef FABRICFIT_API_H
#define FABRICFIT_API_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
  FF_OK = 0,
  FF_EINVAL = 1,    /* bad input: the message says what and where */
  FF_EINTERNAL = 2, /* anything else: the caller falls back to Slurm's defaults */
};

#define FF_PATTERN_MAX 64
#define FF_PATH_MAX 4096

/*
 * A job's collective pattern as a value (placement/comm_pattern.hpp): parsed once from the
 * text a user wrote, then carried as it is. A zeroed ff_pattern_t is `ring`; tp, pp and dp
 * are the group sizes of FF_PATTERN_PARALLEL (tp=T,pp=P,dp=D) and are not read otherwise.
 */
enum { FF_PATTERN_RING = 0, FF_PATTERN_TREE, FF_PATTERN_ALLTOALL, FF_PATTERN_NONE, FF_PATTERN_PARALLEL };
typedef struct ff_pattern {
  int kind;
  unsigned tp, pp, dp;
} ff_pattern_t;

typedef struct ff_settings {
  char snapshot_file[FF_PATH_MAX];
  ff_pattern_t default_pattern;       /* DefaultPattern */
  char source[16];                    /* "file", "last-good" or "defaults": where these came from */
  int debug_placement;                /* DebugFlags=Placement */
  double locality_wait_max_s;         /* LocalityWaitMax: seconds; 0 = no locality wait */
  double locality_wait_comm_share;    /* LocalityWaitCommShare: the run-time model's f */
  int locality_wait_static_routing;   /* LocalityWaitRouting=static (else ecmp) */
  int locality_wait_history_estimate; /* LocalityWaitEstimate=history (else limit) */
  char health_file[FF_PATH_MAX];      /* HealthFile; "": beside the snapshot (ff_health_path) */
  long health_max_age_s;              /* HealthMaxAge: seconds; 0 = never stale */
} ff_settings_t;

/* Parses a --comm-pattern value; FF_EINVAL, with the reason in `err`, for a bad one. */
int ff_pattern_parse(const char* text, ff_pattern_t* out, char* err, size_t err_len);
/* The pattern's canonical spelling (what ff_pattern_parse reads back); "-" for NULL. */
void ff_pattern_name(const ff_pattern_t* pattern, char* out, size_t out_len);

/*
 * Loads fabricfit.conf into `out`. A missing file gives the defaults. On a bad file,
 * returns FF_EINVAL with the reason in `err`, and `out` holds the last good copy kept at
 * `last_good` (NULL: keep none) or else the defaults, never a half-read file.
 */
int ff_settings_load(const char* path, const char* last_good, ff_settings_t* out, char* err, size_t err_len);

/*
 * The pattern a job runs with: `requested` (its --comm-pattern; NULL when none was given),
 * else `none` for a job of at most one node, else the site default (settings NULL: ring).
 * FF_EINVAL for a `requested` value the core does not know.
 */
int ff_effective_pattern(const ff_pattern_t* requested, unsigned max_nodes, const ff_settings_t* settings,
                         ff_pattern_t* out, char* err, size_t err_len);
/*
 * The pattern slurmctld places, prices and records a job with: ff_effective_pattern's, or
 * `ring` when the job's recorded request does not parse (the SPANK plugin refuses such a
 * value; a record from elsewhere may still hold one). Never fails.
 */
ff_pattern_t ff_job_pattern(const char* requested, unsigned max_nodes, const ff_settings_t* settings);

/* ---- placement engine (slurmctld) ---- */

enum {
  FF_ENOFIT = 3, /* no placement fits now (not an error: Slurm's evaluator decides) */
};

typedef struct ff_engine ff_engine_t;

/*
 * Loads a fabric snapshot into a new engine. On failure *out is NULL and `err` says
 * which file and what is wrong with it.
 */
int ff_engine_load(const char* snapshot_path, ff_engine_t** out, char* err, size_t err_len);
/*
 * As ff_engine_load, for the cluster whose Slurm nodes are nodes[0..node_count) (0: no
 * check), keeping the last snapshot that loaded: a snapshot with none of those nodes as
 * hosts (another fabric's) is refused like a corrupt one. On success a copy is written
 * (atomically) to `last_good` (NULL or "": none). On failure returns the error, and *out
 * is the engine of the copy at `last_good` when that loads and passes the same check
 * (*from_last_good = 1), else NULL.
 */
int ff_engine_load_keeping_last_good(const char* snapshot_path, const char* last_good,
                                     const char* const* nodes, size_t node_count, ff_engine_t** out,
                                     int* from_last_good, char* err, size_t err_len);
void ff_engine_free(ff_engine_t* engine);
/* "hosts=32 leaf_groups=4 rails=1 tiers=2 ..." for logs and scontrol show topology. */
void ff_engine_describe(const ff_engine_t* engine, char* out, size_t out_len);
int ff_engine_host_count(const ff_engine_t* engine);
/* The fabric host of a Slurm node, or -1 when the fabric has no such host. */
int ff_engine_host(const ff_engine_t* engine, const char* node_name);
/* Name of a fabric host (the Slurm node name it stands for), or NULL. */
const char* ff_engine_host_name(const ff_engine_t* engine, int host);
/* Host order that keeps leaf groups contiguous (for node ranking): 0 = first. */
int ff_engine_host_rank(const ff_engine_t* engine, int host);
/* The leaf group of a fabric host (0 = first), or -1 when it is in none or unknown. */
int ff_engine_host_leaf_group(const ff_engine_t* engine, int host);
/*
 * --exclusive=topo: marks (hosts[h] = 1) every host of each NVLink domain that holds a marked
 * host; hosts in no domain stay as they are. `hosts` has ff_engine_host_count() entries.
 * Returns the hosts it marked, or -1 on a missing or wrongly sized argument.
 */
int ff_engine_mark_whole_domains(const ff_engine_t* engine, unsigned char* hosts, int count);
/*
 * --segment=N as allocated (Slurm 25.11+'s topology job info, which switch/nvidia_imex reads
 * for --network=unique-channel-per-segment): segment_of[i] is the segment (0, 1, ...) of
 * hosts[i], each segment N hosts of one NVLink domain. Returns the number of segments, or
 * -1 when the hosts cannot be cut so (a host in no domain, a domain's count N does not
 * divide) or on a missing argument.
 */
int ff_engine_segments(const ff_engine_t* engine, const int* hosts, unsigned nhosts, unsigned segment,
                       int* segment_of);
/*
 * Slurm's node names (all the nodes the plugin has), against the fabric's hosts. Writes
 * to `report` one line naming, as Slurm hostlists, the Slurm nodes the fabric does not
 * have and the fabric hosts Slurm does not have ("" when they agree), for the plugin to
 * log once at load and reconfigure. Returns how many of the names are fabric hosts, or
 * -1 on bad arguments.
 */
int ff_engine_check_slurm_nodes(const ff_engine_t* engine, const char* const* names, size_t count,
                                char* report, size_t report_len);

typedef struct ff_request {
  unsigned min_nodes;
  unsigned max_nodes;     /* 0: as min_nodes */
  unsigned gpus_per_node; /* 0 when total_gpus is given */
  unsigned total_gpus;
  int exclusive;        /* whole nodes */
  ff_pattern_t pattern; /* the job's pattern (ff_job_pattern) */
  unsigned segment;     /* --segment: nodes that lie in one NVLink domain; 0: none */
} ff_request_t;

/*
 * Chooses hosts for a request. Arrays are per fabric host (ff_engine_host_count()):
 * allowed[h] nonzero when Slurm offers host h to this job, free_gpus[h] its free GPUs,
 * total_gpus[h] its GPUs. On FF_OK, chosen[0..*nchosen) are hosts in rank order
 * (contiguous per leaf group) and `summary` holds the score as "key=value ..." words.
 * A job that needs several leaf groups is placed beside the running jobs registered with
 * ff_engine_running_add (the plan that leaves it the largest share of its uplinks, among
 * the equally whole and healthy ones: "uplink_share=" in the summary).
 * FF_ENOFIT when nothing fits; FF_EINVAL for a request that makes no sense.
 * With a health view (ff_engine_use_health), multi-host jobs are kept off unhealthy
 * links: the summary then ends in " health=kept_off" (placed off a link it would have
 * crossed) or " health=took_degraded" (only placements across a degraded link fitted);
 * FF_EHEALTH, summary "health=waits", when only placements across a failing link fit.
 * On a fabric with NVLink domains, a job that fits a domain is placed inside one, and
 * request->segment nodes at a time inside one (docs/placement.md, "NVLink domains"):
 * FF_EDOMAIN, summary "domain=waits", when no domain (or set of domains) holds it now.
 */
int ff_engine_place(ff_engine_t* engine, const ff_request_t* request, const unsigned char* allowed,
                    const int* free_gpus, const int* total_gpus, int* chosen, unsigned* nchosen,
                    char* summary, size_t summary_len, char* err, size_t err_len);

/*
 * Cluster-wide fragmentation of the given free GPUs (docs/placement.md): the share of
 * the free GPUs the workload's job sizes could not use (0..1), and their number.
 */
int ff_engine_fragmentation(const ff_engine_t* engine, const int* free_gpus, const int* total_gpus,
                            double* share, double* unusable_gpus, char* err, size_t err_len);

/* ---- the fabric's health in placement (slurmctld; placement/selection/health_view.hpp) ---- */

enum {
  FF_EHEALTH = 5, /* only placements across a failing link fit now: the job stays pending */
  FF_EDOMAIN = 6, /* the job's segments fit no NVLink domains now: it stays pending (block's rule) */
};

/* A health file as `fabricfit health --sweep` wrote it, read and checked. */
typedef struct ff_health ff_health_t;

/* The health file slurmctld reads: `settings`' HealthFile, else the one beside its snapshot. */
void ff_health_path(const ff_settings_t* settings, char* out, size_t out_len);
/*
 * Reads a health file (off slurmctld's locks: it reads the disk). On failure *out is NULL,
 * FF_EINVAL with the file and the reason in `err` (missing, truncated, corrupt, another
 * version).
 */
int ff_health_load(const char* path, ff_health_t** out, char* err, size_t err_len);
void ff_health_free(ff_health_t* health);
/* 1 when the file's last sweep is older than max_age_s at `now` (max_age_s 0: never). */
int ff_health_stale(const ff_health_t* health, long now, long max_age_s);
/* When the file's last sweep ended (seconds since the epoch); 0 for NULL. */
long ff_health_sweep_time(const ff_health_t* health);
/*
 * Places by `health` from now on (NULL: all links healthy): ff_engine_place keeps
 * multi-host jobs off hosts whose HCA link and leaf groups whose uplinks are not healthy
 * (docs/placement.md, "Faults"). Builds the view over the engine's fabric in memory (no
 * file is read). FF_EINVAL, the engine's view unchanged, for a file of another fabric.
 * Not locked: call it where the engine may be replaced (slurmctld's locks held).
 */
int ff_engine_use_health(ff_engine_t* engine, const ff_health_t* health, char* err, size_t err_len);
/* "hosts_failing=1 hosts_degraded=0 leaf_groups_failing=0 leaf_groups_degraded=1" of the
 * view in use ("none" when all is healthy). */
void ff_engine_health_describe(const ff_engine_t* engine, char* out, size_t out_len);

/* ---- a Slurm job's request (placement/slurm/slurm_request.hpp) ---- */

enum {
  FF_EDECLINE = 4, /* fabricfit leaves the job to Slurm's selection: the reason says why */
};

/* What topology/fabricfit reads from a job record and the evaluation Slurm asks for. */
typedef struct ff_job_facts {
  const char* tres_per_node;   /* --gpus-per-node, e.g. "gres/gpu:8"; NULL: none */
  const char* tres_per_job;    /* --gpus */
  const char* tres_per_task;   /* --gpus-per-task */
  const char* tres_per_socket; /* --gpus-per-socket */
  unsigned min_nodes;          /* this evaluation's minimum */
  unsigned max_nodes;          /* this evaluation's maximum */
  unsigned req_nodes;          /* the node count Slurm aims for */
  unsigned num_tasks;          /* -n; 0: not given */
  unsigned ntasks_per_node;    /* 0: not given */
  int whole_node;              /* --exclusive */
  int required_nodes;          /* -w */
  int contiguous;              /* --contiguous */
  int spread_job;              /* --spread-job */
  int exclusive_topo;          /* --exclusive=topo */
  const char* comm_pattern;    /* --comm-pattern as the SPANK plugin recorded it; NULL: none */
  unsigned segment_size;       /* --segment (nodes per NVLink domain); 0: none */
} ff_job_facts_t;

/*
 * The request fabricfit places for a job (FF_OK, `out` filled, its pattern by
 * ff_job_pattern on the request's max_nodes with `settings`' default), or FF_EDECLINE with
 * a short reason ("no-gpus", "contiguous", ...) in `reason` when the job is left to
 * Slurm's selection.
 */
int ff_job_request(const ff_job_facts_t* facts, const ff_settings_t* settings, ff_request_t* out,
                   char* reason, size_t reason_len);

/* --switches=N@T: 1 when a placement over `leaf_groups` leaf groups may start now. */
int ff_switches_allow(unsigned switches, unsigned leaf_groups, long waited_s, long wait_limit_s);

/*
 * A node's GPUs: `reported` (the GRES state's configured count) when plausible, else
 * what slurm.conf's Gres= string says; -1 when neither is usable. Right after a restart
 * from saved state the reported count is a NO_VAL sentinel or 0.
 */
int ff_node_gpus(unsigned long long reported, const char* config_gres);

/* Leaf groups the given hosts span. */
unsigned ff_engine_leaf_groups_of(const ff_engine_t* engine, const int* hosts, unsigned count);

/* GPUs in a Slurm TRES string such as "gres/gpu:8", "gres/gpu:h100:4,gres/shard:2" or
 * "cpu=1,gres/gpu=2" (tres_per_task); 0 if none. */
unsigned ff_tres_gpus(const char* tres);

/* ---- the adaptive locality wait (slurmctld; placement/waiting/wait_decision.hpp) ---- */

/* What the controller knows of a job at one evaluation: seconds, times since the epoch. */
typedef struct ff_wait_facts {
  double now;
  double eligible;     /* when the job became eligible (Slurm's begin time): the cap counts from here */
  double time_limit_s; /* the job's time limit; 0: none (the job never waits) */
  double comm_share;   /* LocalityWaitCommShare */
  double cap_s;        /* LocalityWaitMax; 0: never waits */
} ff_wait_facts_t;

typedef struct ff_wait_advice {
  int wait;               /* 1: keep the job pending for its leaf group(s) */
  int leaf_group;         /* the group it waits for, the first of them (-1: none) */
  double slowdown_now;    /* of the placement it could get now, by the run-time model */
  double gain_s;          /* time limit x (slowdown now - slowdown there) */
  double expected_wait_s; /* until that group is expected to hold it */
  double ready_at;        /* when (0: no group) */
  double until;           /* the wait ends at the latest: min(ready_at, eligible + cap) */
  unsigned nhosts;        /* hosts[0..nhosts): the hosts it expects, reserved while it waits */
  char verdict[32];       /* "waits", "one-group", "no-gain", "wait-exceeds-gain", "cap-reached", ... */
  unsigned leaf_groups;   /* how many groups it waits for: 1, or the fewest for a job wider than any */
} ff_wait_advice_t;

/*
 * Whether a job whose placement now is placed[0..nplaced) (fabric hosts, as
 * ff_engine_place chose them for `request`) should stay pending for one leaf group.
 * Per fabric host: usable[h] nonzero when the job may ever run on h (its partition, up,
 * not excluded), free_gpus/total_gpus now, host_free_at[h] when the jobs on h reach
 * their time limits (<= now: none). `hosts` (ff_engine_host_count() entries) receives
 * the hosts it expects. On a fabric with NVLink domains the group must hold the job as the
 * domain rules place it: request->segment nodes (or the whole job when one domain could
 * hold it) inside one domain. The run-time model routes as ff_engine_use_routing last said
 * (ECMP until then). FF_OK with `out` filled; FF_EINVAL on bad arguments.
 */
int ff_engine_wait_advice(ff_engine_t* engine, const ff_request_t* request, const int* placed,
                          unsigned nplaced, const unsigned char* usable, const int* free_gpus,
                          const int* total_gpus, const double* host_free_at, const ff_wait_facts_t* facts,
                          ff_wait_advice_t* out, int* hosts, char* err, size_t err_len);

/*
 * The controller's book of locality waits (placement/waiting/wait_book.hpp): which pending jobs
 * wait, until when, the node slots (indices of slurmctld's node table) reserved for each,
 * and the rules applied at each evaluation. The glue reads Slurm's records into these
 * values and applies what comes back; it keeps no wait of its own. Not locked: used under
 * slurmctld's job write lock, except ff_wait_book_next_end (any thread).
 */
typedef struct ff_wait_book ff_wait_book_t;
ff_wait_book_t* ff_wait_book_new(void); /* NULL without memory */
void ff_wait_book_free(ff_wait_book_t* book);

/* The job an evaluation is for. */
typedef struct ff_evaluated_job {
  uint32_t job_id;
  uint32_t priority;
  double time_limit_s; /* 0: none */
  int test_only;       /* a submission test or one of backfill's trials */
  int backfill_test;   /* one of backfill's trials */
  int switches;        /* the job asked for --switches */
  const int* required; /* its -w nodes as node slots (NULL: none) */
  unsigned nrequired;
} ff_evaluated_job_t;

/* Slurm's view of a job the book asks about. */
typedef struct ff_queued_job {
  int pending;
  uint32_t priority;
} ff_queued_job_t;
/* Fills `out` and returns 1 for a job slurmctld holds, 0 for one it does not. */
typedef int (*ff_find_job_fn)(void* ctx, uint32_t job_id, ff_queued_job_t* out);
/* A waiting job's reason to show in its state_desc (Slurm resets it when it cannot start it). */
typedef void (*ff_show_reason_fn)(void* ctx, uint32_t job_id, const char* reason);
/* A node slot the evaluated job must not have: reserved for a job ahead of it. */
typedef void (*ff_take_node_fn)(void* ctx, int node);

typedef struct ff_wait_begin {
  int decide_afresh; /* the job waits: this evaluation decides again (best_switch true) */
  int may_run;       /* 0: it requires (-w) a node reserved for a waiting job ahead */
  int schedule;      /* a wait reached its time with its job pending: schedule now */
} ff_wait_begin_t;

/*
 * Before an evaluation of `job`: waits that ended are dropped, every other waiting job's
 * reason is shown again, and the nodes reserved for the waits the job ranks after (and
 * would not end before) are taken from its candidates. `table_size` is the node table's
 * size now, `offered_size` the size of the candidates' map.
 */
int ff_wait_book_begin(ff_wait_book_t* book, const ff_evaluated_job_t* job, double now, int table_size,
                       int offered_size, ff_find_job_fn find, ff_show_reason_fn show, ff_take_node_fn take,
                       void* ctx, ff_wait_begin_t* out, char* err, size_t err_len);

enum {
  FF_WAIT_NONE = 0,      /* nothing to do */
  FF_WAIT_FORGOT = 1,    /* the job waited and waits no more (not fabricfit's placement now) */
  FF_WAIT_ONE_GROUP = 2, /* the job waited and has one leaf group now */
  FF_WAIT_HOLD = 3,      /* a backfill trial of a waiting, still split job: keep it pending */
  FF_WAIT_ASK = 4,       /* a split allocation: ask ff_engine_wait_advice */
};
/*
 * After Slurm's evaluator accepted a placement: `placed` nonzero when fabricfit chose it,
 * on the fabric hosts hosts[0..nhosts) of `engine` (NULL: none). Returns an FF_WAIT_* step;
 * FORGOT and ONE_GROUP have dropped the wait.
 */
int ff_wait_book_after(ff_wait_book_t* book, const ff_evaluated_job_t* job, int placed,
                       const ff_engine_t* engine, const int* hosts, unsigned nhosts);
/*
 * The job waits (again) as `advice` says, on the node slots nodes[0..nnodes) of a table of
 * `table_size`, showing `reason`. *changed (may be NULL): new, or its times moved.
 */
int ff_wait_book_keep(ff_wait_book_t* book, uint32_t job_id, const ff_wait_advice_t* advice, const int* nodes,
                      unsigned nnodes, int table_size, const char* reason, int* changed, char* err,
                      size_t err_len);
/* The job waits no more; 1 when it waited. */
int ff_wait_book_forget(ff_wait_book_t* book, uint32_t job_id);
/* The reason a waiting job shows, or NULL when it does not wait (valid until the book changes). */
const char* ff_wait_book_reason(const ff_wait_book_t* book, uint32_t job_id);
/* The earliest time a wait ends (0: none); any thread. */
long ff_wait_book_next_end(const ff_wait_book_t* book);
unsigned ff_wait_book_count(const ff_wait_book_t* book);
/*
 * The job is held pending for `reason` (only placements across failing links fit, no NVLink
 * domain has room): ff_wait_book_begin shows it as it shows the waits' reasons, until
 * ff_wait_book_after sees the job placed outside a trial, or it leaves the queue. Nothing
 * is reserved for it.
 */
int ff_wait_book_note(ff_wait_book_t* book, uint32_t job_id, const char* reason);
unsigned ff_wait_book_notes(const ff_wait_book_t* book); /* jobs noted */
/* The job's note goes (each real evaluation decides afresh whether it is still held). */
void ff_wait_book_unnote(ff_wait_book_t* book, uint32_t job_id);

/*
 * The split jobs running now, which placement and the locality wait price a split beside (peak uplink
 * demands; placement/waiting/wait_decision.hpp). ff_engine_running_add registers job `job_id` on
 * `hosts` (fabric hosts, `gpus_per_node` GPUs each, or request->total_gpus spread in order)
 * with request->pattern; a job in one leaf group loads no uplink and is not kept. Adding a
 * job again replaces it. ff_engine_running_jobs copies up to `max` registered job ids into
 * `ids` and returns how many there are (0 when it cannot take the lock); ff_engine_running_remove
 * forgets one (FF_EINTERNAL, with the reason in `err`, when it could not: out of memory).
 */
int ff_engine_running_add(ff_engine_t* engine, uint32_t job_id, const ff_request_t* request, const int* hosts,
                          unsigned nhosts, char* err, size_t err_len);
/*
 * Counts a job Slurm runs on the fabric hosts hosts[0..nhosts), from its record's facts:
 * what it loads is what it asked for on the nodes it got, whatever placed it (a -w,
 * --contiguous, --spread-job or --exclusive=topo job loads the uplinks like any other).
 * FF_OK when it was given to ff_engine_running_add (which keeps it only if it leaves its
 * leaf group); FF_EDECLINE, with the reason in `err`, for a job that loads no uplink
 * fabricfit can price (no GPUs, GPUs per socket).
 */
int ff_engine_running_count(ff_engine_t* engine, uint32_t job_id, const ff_job_facts_t* facts,
                            const ff_settings_t* settings, const int* hosts, unsigned nhosts, char* err,
                            size_t err_len);
unsigned ff_engine_running_jobs(ff_engine_t* engine, uint32_t* ids, unsigned max);
int ff_engine_running_remove(ff_engine_t* engine, uint32_t job_id, char* err, size_t err_len);
/*
 * Forgets the registered jobs that run no more: running(ctx, id) is 0 for a job slurmctld
 * no longer runs (gone, finished, suspended). FF_EINTERNAL, naming the first job kept, when
 * one could not be removed (out of memory).
 */
typedef int (*ff_job_running_fn)(void* ctx, uint32_t job_id);
int ff_engine_running_prune(ff_engine_t* engine, ff_job_running_fn running, void* ctx, char* err,
                            size_t err_len);

/*
 * The controller's scans of its job list for running multi-host jobs an engine has not
 * counted (placement/waiting/running_scan.hpp): due for a new engine `generation` (0: none) and
 * every 10 s. Between ff_running_scan_start and _finish, ff_running_scan_should_count says
 * of each running job on several nodes whether to count it now (ff_engine_running_add).
 * Used by one thread; the engine's lock is its own.
 */
typedef struct ff_running_scan ff_running_scan_t;
ff_running_scan_t* ff_running_scan_new(void); /* NULL without memory */
void ff_running_scan_free(ff_running_scan_t* scan);
int ff_running_scan_due(const ff_running_scan_t* scan, unsigned generation, long now);
/* The node table is being remapped: no scan until the next interval. */
void ff_running_scan_postpone(ff_running_scan_t* scan, long now);
int ff_running_scan_start(ff_running_scan_t* scan, ff_engine_t* engine, unsigned generation, long now,
                          char* err, size_t err_len);
int ff_running_scan_should_count(ff_running_scan_t* scan, uint32_t job_id, long start_time);
/* *fresh: the first scan for this engine; *running: running multi-host jobs seen. */
int ff_running_scan_finish(ff_running_scan_t* scan, ff_engine_t* engine, int* fresh, int* running, char* err,
                           size_t err_len);

/*
 * The routing the run-time model assumes (LocalityWaitRouting: 1 static, 0 ECMP) for the
 * placements and waits that follow: ff_engine_place steers a job it must split off the
 * uplinks the registered jobs load (and, under static routes, off their cables).
 */
int ff_engine_use_routing(ff_engine_t* engine, int static_routing, char* err, size_t err_len);

/*
 * Run times predicted from the users' last finished jobs (LocalityWaitEstimate=history;
 * placement/runtime/runtime_predictor.hpp), for the locality wait. One predictor lives as long as
 * slurmctld, across engines; it locks itself. ff_predictor_observe takes a finished job
 * (one seen again is ignored); ff_predictor_run gives the run time the wait takes for a
 * job with this limit, and ff_predictor_end when a running job whose limit ends at
 * `limit_end` is expected to end, given `now`. With `history` 0, or no predictor, both
 * give the limit back. None of them fails: without memory to learn, a job is not learnt.
 */
typedef struct ff_predictor ff_predictor_t;
ff_predictor_t* ff_predictor_new(void);
void ff_predictor_free(ff_predictor_t* predictor);
void ff_predictor_observe(ff_predictor_t* predictor, uint32_t user, uint64_t job_id, double limit_s,
                          double run_s, double end);
double ff_predictor_run(ff_predictor_t* predictor, int history, uint32_t user, double limit_s);
double ff_predictor_end(ff_predictor_t* predictor, int history, uint32_t user, double limit_s,
                        double limit_end, double now);
/*
 * What it learnt survives a restart or reconfigure in a file (slurmctld's
 * StateSaveLocation). ff_predictor_save writes it atomically (readers see the old file or
 * the new one), only when something was learnt since the last save or load; *written
 * (may be NULL) says whether it wrote. ff_predictor_load adds a saved history to what is
 * learnt; *jobs (may be NULL) gets how many finished jobs it read. A file that does not
 * read changes nothing and is FF_EINVAL with "PATH:LINE: reason"; one that cannot be
 * read or written, FF_EINTERNAL naming it.
 */
int ff_predictor_save(ff_predictor_t* predictor, const char* path, int* written, char* err, size_t err_len);
int ff_predictor_load(ff_predictor_t* predictor, const char* path, unsigned* jobs, char* err, size_t err_len);

/* ---- what the controller tells admins (slurmctld) ---- */

/*
 * The placement record of a job, one line for its AdminComment (sacct keeps it):
 * "fabricfit placement=fabricfit leaf_groups=2 groups=A,B cross_spine_gb=0.5 uplink_ms=1.25
 * unusable_gpus=+0.0 pattern=ring" (docs/plugins.md). `hosts` are fabric hosts in rank order with
 * `gpus[i]` GPUs each; `free_gpus`/`total_gpus` (per fabric host, as for ff_engine_place,
 * before the job; both NULL to leave unusable_gpus out). With a non-empty
 * `fallback_reason` (no-gpus, no-fit, ...): "fabricfit placement=slurm reason=R pattern=P"
 * and the hosts are not read; `engine` may then be NULL (no snapshot), and a NULL `pattern`
 * (not known) is left out. A placement by fabricfit needs its pattern.
 */
int ff_engine_record(const ff_engine_t* engine, const int* hosts, const int* gpus, unsigned nhosts,
                     const int* free_gpus, const int* total_gpus, const ff_pattern_t* pattern,
                     const char* fallback_reason, char* out, size_t out_len, char* err, size_t err_len);

/*
 * ff_engine_record for a job Slurm placed on the fabric hosts hosts[0..nhosts) (any order):
 * the hosts in fabricfit's rank order, each with request->gpus_per_node GPUs, or for a
 * request of total_gpus, its GPUs spread over the hosts in that order as free_gpus allows.
 * The pattern is request->pattern.
 */
int ff_engine_job_record(const ff_engine_t* engine, const ff_request_t* request, const int* hosts,
                         unsigned nhosts, const int* free_gpus, const int* total_gpus, char* out,
                         size_t out_len, char* err, size_t err_len);

/*
 * A job's AdminComment with fabricfit's placement record in it: `existing` (NULL: none)
 * with its own "fabricfit placement=..." segment replaced by `record`, or `record`
 * appended after "; " (an admin's text is kept as it is). `out_len` must be at least
 * strlen(existing) + strlen(record) + 3; FF_EINVAL otherwise.
 */
int ff_admin_comment_merge(const char* existing, const char* record, char* out, size_t out_len);

/*
 * `scontrol show topology` text of the fabric: a summary line (origin, snapshot age),
 * one line per leaf group (Slurm hostlist, FreeGpus=free/total, uplinks, capacity,
 * oversubscription, pod), per pod and per degraded link. `node_list` (a Slurm hostlist,
 * NULL or "" for all) limits it to those nodes' leaf groups. free/total per fabric host.
 */
int ff_engine_topology(const ff_engine_t* engine, const int* free_gpus, const int* total_gpus,
                       const char* node_list, char* out, size_t out_len, char* err, size_t err_len);

/*
 * The lines of an ff_engine_topology() text that concern `node_list` (a Slurm hostlist;
 * NULL or "" for all): what a client (scontrol, which has no engine) prints of the text
 * slurmctld packed. Needs no engine.
 */
int ff_topology_filter(const char* text, const char* node_list, char* out, size_t out_len, char* err,
                       size_t err_len);

/* ---- a job's tasks (SPANK plugin, slurmstepd) ---- */

typedef struct ff_site ff_site_t;

/*
 * Reads fabricfit.conf with the rule slurmctld uses (ff_settings_load): a good file is
 * taken (and copied to `last_good` when given); a bad one gives FF_EINVAL with the
 * reason in `err`, and *out then holds the last good copy or the defaults. *out is NULL
 * only on FF_EINTERNAL. Free with ff_site_free.
 */
int ff_site_load(const char* path, const char* last_good, ff_site_t** out, char* err, size_t err_len);
/*
 * Where ff_job_env keeps this node's last good copy of the snapshot (slurmstepd's
 * `snapshot_last_good=`): `path`, "" for none. Without a call (or with NULL):
 * fabricfit.snapshot.last-good in the directory of ff_site_load's `last_good`, none without
 * one.
 */
void ff_site_keep_snapshot(ff_site_t* site, const char* path);
/*
 * Reads the snapshot for the next ff_job_env now, with ff_job_env's rule (the node's last
 * good copy kept and used): slurmstepd calls it in slurm_spank_init, with root's
 * privileges, because slurm_spank_user_init runs with the job user's, which may not write
 * the copy. FF_OK when the snapshot or the copy is held; else its error, which ff_job_env
 * then returns. Without it, ff_job_env reads the snapshot itself.
 */
int ff_site_read_snapshot(ff_site_t* site, char* err, size_t err_len);
void ff_site_free(ff_site_t* site);
/* The settings both plugins share, as ff_settings_load gives them. */
void ff_site_settings(const ff_site_t* site, ff_settings_t* out);

/* Looks up a variable of the job's environment: its value, or NULL when unset. */
typedef const char* (*ff_getenv_fn)(void* ctx, const char* name);

/*
 * The variables for the tasks of a job step on `node` (docs/plugins.md): FABRICFIT_*
 * describing the placement and, unless the site or the pattern turns them off, NCCL_*
 * for this node's compute HCAs. `job_nodes` is the job's Slurm hostlist in rank order,
 * `pattern` its effective pattern, `gpus_on_node` this node's GPUs (0: unknown).
 * `getenv` tells a variable the user set (kept) from one an earlier step of the same job
 * set on another node (recomputed). On FF_OK, `out` holds "NAME=VALUE\n" lines to set,
 * overwriting, and "-NAME\n" lines to unset; `notes` lines for the daemon log (may be
 * empty). The snapshot is read with slurmctld's rule (ff_engine_load_keeping_last_good):
 * one that loads is copied to the node's last good copy (ff_site_keep_snapshot) when that
 * differs; one that is missing or does not load gives the copy's settings, and
 * `snapshot_note` one line naming the file, its error and the copy (else empty: a line
 * per step, for a debug log; slurmctld tells the admin once). FF_EINVAL when neither the
 * snapshot nor a copy can be read (`err` names the snapshot's error): set nothing. Uses
 * (and lets go of) the snapshot ff_site_read_snapshot held, else reads it.
 */
int ff_job_env(ff_site_t* site, const char* node, const char* job_nodes, const ff_pattern_t* pattern,
               unsigned gpus_on_node, ff_getenv_fn getenv, void* getenv_ctx, char* out, size_t out_len,
               char* notes, size_t notes_len, char* snapshot_note, size_t snapshot_note_len, char* err,
               size_t err_len);

/* "fabricfit 0.1.0" */
const char* ff_version(void);

#ifdef __cplusplus
}
#endif

#endif
