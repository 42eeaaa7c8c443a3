// Hostile C++ programs for tests/filters/test_attacks_cpp.py: one executable, compiled once; the
// first word of the input names the attack, the rest are its arguments. (Static arrays are the
// whole executable's: those attacks are programs of their own, in the test.) Each prints "ok" when
// the attack failed as it should (the test also checks the verdict and what was left behind).
#include <bits/stdc++.h>
#include <fcntl.h>
#include <linux/keyctl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <dirent.h>
#include <unistd.h>
using namespace std;

static vector<string> args;

static bool readable(const string& p) {  // opened and read at least one byte
    int fd = open(p.c_str(), O_RDONLY);
    if (fd < 0) return false;
    char c;
    bool ok = read(fd, &c, 1) > 0;
    close(fd);
    return ok;
}

static long raw_syscall(long n, long a = 0, long b = 0, long c = 0, long d = 0, long e = 0) {
#if defined(__x86_64__)
    long ret;
    register long r10 asm("r10") = d;
    register long r8 asm("r8") = e;
    asm volatile("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
                 : "rcx", "r11", "memory");
    return ret;
#else
    return syscall(n, a, b, c, d, e);
#endif
}

static volatile long sink;

static int recurse(int n) {
    volatile char pad[4096];
    pad[0] = (char)n;
    return recurse(n + 1) + pad[0];
}

int main() {
    string name, w;
    cin >> name;
    while (cin >> w) args.push_back(w);
    if (name == "fork_bomb") {
        for (;;) fork();
    } else if (name == "memory_bomb") {  // touched pages: resident memory past the limit
        vector<char*> blocks;
        for (;;) {
            char* p = (char*)malloc(1 << 20);
            if (!p) break;
            memset(p, 1, 1 << 20);
            blocks.push_back(p);
        }
        puts("ok");
    } else if (name == "huge_new") {  // one allocation past the address space: bad_alloc
        vector<long long> v(1LL << 31);
        v[12345] = 1;
        sink = v[12345];
        puts("ok");
    } else if (name == "mmap_noreserve") {  // a mapping the kernel need not back, then touched
        size_t n = size_t(strtoll(args.at(0).c_str(), nullptr, 10)) << 20;
        volatile char* p = (volatile char*)mmap(nullptr, n, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) { puts("ok"); return 0; }
        for (size_t i = 0; i < n; i += 4096) p[i] = 1;
        puts("ok");
    } else if (name == "spin") {
        for (;;) sink++;
    } else if (name == "sleep") {
        sleep(100);
        puts("ok");
    } else if (name == "flood_stdout") {
        string s(1000, 'x');
        for (;;) puts(s.c_str());
    } else if (name == "flood_stderr") {
        string s(1000, 'y');
        for (;;) fputs(s.c_str(), stderr);
    } else if (name == "write_files") {  // args: paths that must not appear on the host
        int made = 0;
        for (auto& p : args) {
            int fd = open(p.c_str(), O_WRONLY | O_CREAT, 0644);
            if (fd >= 0) { made += write(fd, "x", 1) > 0; close(fd); }
        }
        puts("ok");  // the test checks the host
    } else if (name == "read_files") {  // args: paths whose contents are the host's
        vector<string> seen;
        for (auto& p : args) if (readable(p)) seen.push_back(p);
        if (seen.empty()) puts("ok");
        else for (auto& s : seen) printf("read %s\n", s.c_str());
    } else if (name == "env") {  // args: names that must be absent
        for (auto& a : args) if (getenv(a.c_str())) { printf("has %s\n", a.c_str()); return 0; }
        puts("ok");
    } else if (name == "network") {  // args: the port of a server listening on the host
        vector<string> reached;
        pair<uint32_t, int> targets[] = {{INADDR_LOOPBACK, atoi(args.at(0).c_str())},
                                         {0x01010101, 53}, {0x08080808, 53}};
        for (auto [addr, port] : targets) {
            int s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
            sockaddr_in a{};
            a.sin_family = AF_INET;
            a.sin_port = htons(port);
            a.sin_addr.s_addr = htonl(addr);
            int rc = connect(s, (sockaddr*)&a, sizeof a);
            if (rc != 0 && errno == EINPROGRESS) {  // wait a little for the handshake
                fd_set w;
                FD_ZERO(&w);
                FD_SET(s, &w);
                timeval tv{0, 300000};
                int err = 1;
                socklen_t len = sizeof err;
                if (select(s + 1, nullptr, &w, nullptr, &tv) == 1) {
                    getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &len);
                    rc = err == 0 ? 0 : -1;
                }
            }
            if (rc == 0) reached.push_back(to_string(port));
            close(s);
        }
        if (reached.empty()) puts("ok");
        else for (auto& r : reached) printf("reached %s\n", r.c_str());
    } else if (name == "unix_socket") {  // args: a socket path on the host
        int s = socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un a{};
        a.sun_family = AF_UNIX;
        strncpy(a.sun_path, args[0].c_str(), sizeof a.sun_path - 1);
        puts(connect(s, (sockaddr*)&a, sizeof a) == 0 ? "connected" : "ok");
    } else if (name == "kill_parent") {
        kill(getppid(), SIGKILL);
        kill(-1, SIGKILL);  // every process it may signal: its own only
        puts("ok");
    } else if (name == "ignore_sigterm") {
        signal(SIGTERM, SIG_IGN);
        for (;;) sink++;
    } else if (name == "daemon") {  // a detached grandchild that outlives the run
        if (fork() == 0) {
            setsid();
            if (fork() == 0) { for (;;) sleep(1); }
            _exit(0);
        }
        wait(nullptr);
        puts("ok");
    } else if (name == "threads") {  // a thread still running when main returns
        thread t([] { for (;;) sink++; });
        t.detach();
        puts("ok");
        fflush(stdout);
        return 0;
    } else if (name == "close_stdio") {
        puts("ok");
        fflush(stdout);
        close(0);
        close(2);
        return 0;
    } else if (name == "stack") {
        return recurse(0);
    } else if (name == "segfault") {
        *(volatile int*)nullptr = 1;
    } else if (name == "abort") {
        abort();
    } else if (name == "exit_code") {
        puts("ok");
        fflush(stdout);
        _exit(3);
    } else if (name == "raw_syscalls") {  // privileged calls made without libc: all refused
        vector<string> got;
        if (raw_syscall(SYS_setuid, 0) == 0) got.push_back("setuid");
        if (raw_syscall(SYS_unshare, CLONE_NEWNS) == 0) {
            if (mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0 &&
                umount2("/work", MNT_DETACH) == 0)
                got.push_back("umount");
        }
        if (raw_syscall(SYS_mount, (long)"tmpfs", (long)"/mnt", (long)"tmpfs", 0, 0) == 0)
            got.push_back("mount");
        if (raw_syscall(SYS_ptrace, PTRACE_ATTACH, 1) == 0) got.push_back("ptrace");
        if (raw_syscall(SYS_kill, 1, SIGKILL) == 0) got.push_back("kill1");
        if (raw_syscall(SYS_reboot, 0xfee1dead, 672274793, 0x4321FEDC) == 0) got.push_back("reboot");
        if (got.empty()) puts("ok");
        else for (auto& g : got) puts(g.c_str());
    } else if (name == "user_namespace") {  // a user namespace, to remount what is covered
        if (unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0) {
            mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr);
            for (auto& p : args) umount2(p.c_str(), MNT_DETACH);
            for (auto& p : args) if (readable(p)) { printf("read %s\n", p.c_str()); return 0; }
        }
        puts("ok");
    } else if (name == "orphan_spin") {  // work handed to a child it never waits for
        int fds[2];
        if (pipe(fds) != 0) return 1;
        if (fork() == 0) {  // about 2 s of CPU, then the answer
            for (long i = 0; i < 2000000000L; i++) sink++;
            write(fds[1], "ok", 2);
            _exit(0);
        }
        char buf[3] = {0};
        if (read(fds[0], buf, 2) == 2) puts(buf);
        fflush(stdout);
        _exit(0);
    } else if (name == "spread_memory") {  // memory split over forked helpers
        for (int i = 0; i < 6; i++) {
            if (fork() == 0) {
                size_t n = size_t(60) << 20;
                char* p = (char*)malloc(n);
                memset(p, 1, n);
                for (;;) sleep(1);
            }
        }
        sleep(3);
        puts("ok");
    } else if (name == "shm_leave") {  // a detached SysV segment, left for the next program
        int id = shmget(0x5eed, 1 << 20, IPC_CREAT | 0666);
        if (id >= 0) { char* p = (char*)shmat(id, nullptr, 0); strcpy(p, "secret"); shmdt(p); }
        puts("ok");
    } else if (name == "shm_find") {
        int id = shmget(0x5eed, 0, 0);
        puts(id < 0 ? "ok" : "found");
    } else if (name == "proc") {  // other processes: only its own are visible
        DIR* d = opendir("/proc");
        int others = 0;
        pid_t me = getpid();
        for (dirent* e; d && (e = readdir(d));) {
            if (!isdigit(e->d_name[0])) continue;
            pid_t p = atoi(e->d_name);
            if (p != me) others++;
        }
        puts(others == 0 ? "ok" : "others");
    } else if (name == "privileges") {
        ifstream f("/proc/self/status");
        string all((istreambuf_iterator<char>(f)), istreambuf_iterator<char>());
        rlimit core{};
        getrlimit(RLIMIT_CORE, &core);
        bool ok = all.find("NoNewPrivs:\t1") != string::npos && core.rlim_cur == 0;
        ok = ok && getuid() != 0 && geteuid() != 0;
        puts(ok ? "ok" : "privileged");
    } else if (name == "io_dir") {  // args: the I/O directory; its files, the binaries
        const string dir = args[0];
        vector<string> reached;
        for (string n : {"", "code", "bin", "in", "out", "note"}) {
            string p = n.empty() ? dir : dir + "/" + n;
            if (n.empty() ? opendir(p.c_str()) != nullptr : readable(p)) reached.push_back(n);
            int fd = open(p.c_str(), O_WRONLY | O_CREAT, 0755);
            if (fd >= 0) { reached.push_back("wrote " + n); close(fd); }
        }
        if (reached.empty()) puts("ok");
        else for (auto& r : reached) printf("reached [%s]\n", r.c_str());
    } else if (name == "keyring") {  // a key added now must not reach the next program
        long id = syscall(SYS_add_key, "user", "cm-left", "secret", 6, KEY_SPEC_USER_KEYRING);
        (void)id;
        puts("ok");
    } else if (name == "keyring_find") {
        long id = syscall(SYS_request_key, "user", "cm-left", nullptr, 0);
        puts(id < 0 ? "ok" : "found");
    } else {
        printf("unknown attack %s\n", name.c_str());
    }
    return 0;
}
