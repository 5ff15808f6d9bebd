/*
 * gdflow-spawn: the native job launcher (see src/engine/executors/process/launcher/: launcher.ts for the
 * protocol's client and launcher-child.ts for the Node implementation of the same protocol, used when this
 * program is not built).
 *
 * Why a C program: starting a job means forking. Forking a 50 MB Node process and waiting for its exec cost
 * about 1-2 ms of CPU per job on the development machine (page tables to copy, copy-on-write faults before the
 * exec); this program is a small process (about 1.5 MB resident), so its fork is cheap, and its child can
 * join the job's cgroups itself before exec instead of the launcher moving itself in and out of them.
 *
 * Protocol (stdin: requests, stdout: replies; see launcher-protocol.ts):
 *   request: NUL-terminated fields
 *     "L", id, file, cwd, stdoutLog, stderrLog, nargs, args..., nenv, "NAME=value"..., njoin, cgroup.procs files...
 *   replies: one line each
 *     "S <id> <pid>"                 spawned (the program has been exec'd)
 *     "F <id> log|spawn <message>"   could not open a log / could not start
 *     "E <id> <code> <signal>"       ended: exit code (or -1) and signal number (or 0)
 *
 * Each job is started in a new session (its own process group), with stdin /dev/null, stdout and stderr its
 * log files (created or truncated, never through a symlink), default signal dispositions and an empty signal
 * mask, in its cgroups from before its first instruction, with exactly the environment of the request.
 *
 * SIGINT, SIGTERM and SIGHUP are ignored (a Ctrl-C in the server's terminal reaches the whole foreground
 * process group; the server decides when jobs end). At end of input (the server exited or was killed) every
 * job still running is SIGKILLed with its process group, and the program exits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

struct job {
  pid_t pid;
  char id[32];
};

static struct job *jobs;
static size_t njobs, capjobs;

static void die(const char *what) {
  fprintf(stderr, "gdflow-spawn: %s: %s\n", what, strerror(errno));
  exit(70);
}

static void reply(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void reply(const char *fmt, ...) {
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line - 1, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n > sizeof line - 2) n = sizeof line - 2;
  for (int i = 0; i < n; i++)
    if (line[i] == '\n' || line[i] == '\r') line[i] = ' '; /* a path in a message must not end the line */
  line[n++] = '\n';
  for (int off = 0; off < n;) {
    ssize_t w = write(1, line + off, (size_t)(n - off));
    if (w < 0) {
      if (errno == EINTR) continue;
      return; /* the server is gone; end of input follows */
    }
    off += (int)w;
  }
}

/* What the child tells the parent before it dies when the exec fails: errno and which step failed. */
struct child_error {
  int err;
  char step[48];
};

static void child_fail(int fd, const char *step) {
  struct child_error e = {.err = errno};
  strncpy(e.step, step, sizeof e.step - 1);
  (void)!write(fd, &e, sizeof e);
  _exit(127);
}

/* execve, searching PATH of the job's environment when file has no slash (as execvp would with that PATH). */
static void exec_file(const char *file, char **argv, char **envp) {
  if (strchr(file, '/')) {
    execve(file, argv, envp);
    return;
  }
  const char *path = "/usr/local/bin:/usr/bin:/bin";
  for (char **e = envp; *e; e++)
    if (strncmp(*e, "PATH=", 5) == 0) path = *e + 5;
  int saved = ENOENT;
  char buf[PATH_MAX];
  for (const char *p = path;; p++) {
    const char *end = strchrnul(p, ':');
    int len = (int)(end - p);
    if (snprintf(buf, sizeof buf, "%.*s%s%s", len, p, len ? "/" : "", file) < (int)sizeof buf) {
      execve(buf, argv, envp);
      if (errno != ENOENT && errno != ENOTDIR) saved = errno;
    }
    if (!*end) break;
    p = end;
  }
  errno = saved;
}

struct request {
  char *id, *file, *cwd, *out, *err;
  char **argv, **envp, **join;
};

/* mkdir -p of path's directory (mode 0755) */
static void make_parent(const char *path) {
  char dir[PATH_MAX];
  if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir) return;
  char *slash = strrchr(dir, '/');
  if (!slash || slash == dir) return;
  *slash = 0;
  for (char *p = dir + 1; *p; p++) {
    if (*p != '/') continue;
    *p = 0;
    mkdir(dir, 0755);
    *p = '/';
  }
  mkdir(dir, 0755);
}

/* Created or truncated, never through a symlink planted at the log's place; its directory is made when missing. */
static int open_log(const char *path) {
  const int flags = O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_NOFOLLOW | O_CLOEXEC;
  int fd = open(path, flags, 0644);
  if (fd < 0 && errno == ENOENT) {
    make_parent(path);
    fd = open(path, flags, 0644);
  }
  return fd;
}

static void launch(struct request *r) {
  int out = open_log(r->out);
  if (out < 0) {
    reply("F %s log %s: %s", r->id, strerror(errno), r->out);
    return;
  }
  int err = open_log(r->err);
  if (err < 0) {
    reply("F %s log %s: %s", r->id, strerror(errno), r->err);
    close(out);
    return;
  }
  int status_pipe[2];
  if (pipe2(status_pipe, O_CLOEXEC) < 0) {
    reply("F %s spawn pipe: %s", r->id, strerror(errno));
    close(out);
    close(err);
    return;
  }
  pid_t pid = fork();
  if (pid == 0) {
    int fd = status_pipe[1];
    sigset_t none;
    sigemptyset(&none);
    for (int s = 1; s < NSIG; s++) signal(s, SIG_DFL);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (setsid() < 0) child_fail(fd, "setsid");
    for (char **j = r->join; *j; j++) {
      int c = open(*j, O_WRONLY | O_CLOEXEC);
      if (c < 0 || write(c, "0", 1) != 1) child_fail(fd, "cannot join the job's cgroup");
      close(c);
    }
    int in = open("/dev/null", O_RDONLY);
    if (in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) child_fail(fd, "stdio");
    if (in > 2) close(in);
    if (chdir(r->cwd) < 0) child_fail(fd, "chdir");
    exec_file(r->file, r->argv, r->envp);
    child_fail(fd, "exec");
  }
  int fork_errno = errno;
  close(status_pipe[1]);
  close(out);
  close(err);
  if (pid < 0) {
    close(status_pipe[0]);
    reply("F %s spawn fork: %s", r->id, strerror(fork_errno));
    return;
  }
  struct child_error e;
  ssize_t n;
  do n = read(status_pipe[0], &e, sizeof e);
  while (n < 0 && errno == EINTR);
  close(status_pipe[0]);
  if (n == (ssize_t)sizeof e) {
    /* the exec failed: the child has exited 127; reap it here, it was never "spawned" */
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
    }
    e.step[sizeof e.step - 1] = 0;
    const char *code = e.err == ENOENT ? "ENOENT" : e.err == EACCES ? "EACCES" : e.err == ENOTDIR ? "ENOTDIR" : "";
    reply("F %s spawn %s %s: %s (%s)", r->id, code, e.step, strerror(e.err), r->file);
    return;
  }
  if (njobs == capjobs) {
    capjobs = capjobs ? capjobs * 2 : 16;
    jobs = realloc(jobs, capjobs * sizeof *jobs);
    if (!jobs) die("realloc");
  }
  jobs[njobs].pid = pid;
  snprintf(jobs[njobs].id, sizeof jobs[njobs].id, "%s", r->id);
  njobs++;
  reply("S %s %d", r->id, (int)pid);
}

static void reap(void) {
  for (;;) {
    int status;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid <= 0) return;
    for (size_t i = 0; i < njobs; i++) {
      if (jobs[i].pid != pid) continue;
      if (WIFEXITED(status)) reply("E %s %d 0", jobs[i].id, WEXITSTATUS(status));
      else reply("E %s -1 %d", jobs[i].id, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
      jobs[i] = jobs[--njobs];
      break;
    }
  }
}

/* Parses one request from buf[0..len); returns the bytes it used, 0 when incomplete, -1 when malformed. */
static ssize_t parse(char *buf, size_t len, struct request *r) {
  char *fields[6];
  size_t pos = 0;
#define NEXT(dst)                                     \
  do {                                                \
    char *nul = memchr(buf + pos, 0, len - pos);      \
    if (!nul) return 0;                               \
    (dst) = buf + pos;                                \
    pos = (size_t)(nul - buf) + 1;                    \
  } while (0)
  for (int i = 0; i < 6; i++) NEXT(fields[i]);
  if (strcmp(fields[0], "L") != 0) return -1;
  r->id = fields[1];
  r->file = fields[2];
  r->cwd = fields[3];
  r->out = fields[4];
  r->err = fields[5];
  char ***lists[3] = {&r->argv, &r->envp, &r->join};
  for (int l = 0; l < 3; l++) {
    char *count;
    NEXT(count);
    char *end;
    long n = strtol(count, &end, 10);
    if (*end || n < 0 || n > 1000000) return -1;
    char **list = calloc((size_t)n + 2, sizeof *list);
    if (!list) die("calloc");
    *lists[l] = list; /* freed by the caller, also when the request is still incomplete */
    size_t first = 0;
    if (l == 0) list[first++] = r->file; /* argv[0]: the file, as Node's spawn does */
    for (long i = 0; i < n; i++) {
      char *item;
      NEXT(item);
      list[first + (size_t)i] = item;
    }
  }
#undef NEXT
  return (ssize_t)pos;
}

int main(void) {
  signal(SIGINT, SIG_IGN);
  signal(SIGTERM, SIG_IGN);
  signal(SIGHUP, SIG_IGN);
  signal(SIGPIPE, SIG_IGN);
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  if (sigprocmask(SIG_BLOCK, &chld, NULL) < 0) die("sigprocmask");
  int sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
  if (sfd < 0) die("signalfd");
  if (fcntl(0, F_SETFD, FD_CLOEXEC) < 0 || fcntl(1, F_SETFD, FD_CLOEXEC) < 0) die("fcntl");

  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  if (!buf) die("malloc");
  int open_input = 1;
  while (open_input) {
    struct pollfd fds[2] = {{.fd = 0, .events = POLLIN}, {.fd = sfd, .events = POLLIN}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      die("poll");
    }
    if (fds[1].revents) {
      struct signalfd_siginfo info;
      while (read(sfd, &info, sizeof info) > 0) {
      }
      reap();
    }
    if (fds[0].revents) {
      if (len == cap) {
        cap *= 2;
        buf = realloc(buf, cap);
        if (!buf) die("realloc");
      }
      ssize_t n = read(0, buf + len, cap - len);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        open_input = 0;
        break;
      }
      len += (size_t)n;
      for (;;) {
        struct request r = {0};
        ssize_t used = parse(buf, len, &r);
        if (used < 0) {
          fprintf(stderr, "gdflow-spawn: malformed request\n");
          exit(65);
        }
        if (used > 0) launch(&r);
        free(r.argv);
        free(r.envp);
        free(r.join);
        if (used == 0) break;
        memmove(buf, buf + used, len - (size_t)used);
        len -= (size_t)used;
      }
    }
  }
  /* end of input: no job outlives the server */
  for (size_t i = 0; i < njobs; i++) kill(-jobs[i].pid, SIGKILL);
  return 0;
}
