package proc

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// parentEnv makes the test binary, run again by TestChildDiesWithParent,
// play the parent: start `sleep` with DieWithParent, print its PID, wait.
const parentEnv = "PROC_TEST_DEATHSIG_PARENT"

// parentOffEnv makes that parent start its child without DieWithParent.
const parentOffEnv = "PROC_TEST_DEATHSIG_OFF"

func TestMain(m *testing.M) {
	if os.Getenv(parentEnv) == "1" {
		die := os.Getenv(parentOffEnv) != "1"
		p, err := Start(Options{Name: "sleeper", Bin: "sleep", Args: []string{"60"}, DieWithParent: die})
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println(p.Cmd.Process.Pid)
		<-p.Done() // until the test kills us (bounded: sleep ends in 60 s)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// A child started with DieWithParent goes when its parent is killed by a
// signal, which runs no cleanup of the parent's (a go test killed by
// -timeout or by hand); without it the child would run on.
func TestChildDiesWithParent(t *testing.T) {
	for _, die := range []bool{true, false} {
		t.Run(fmt.Sprintf("DieWithParent=%v", die), func(t *testing.T) {
			child := startParentAndKill(t, die)
			if !die {
				if !alive(child) {
					t.Fatalf("child %d died without DieWithParent: the test cannot tell the option's effect", child)
				}
				syscall.Kill(child, syscall.SIGKILL)
				return
			}
			if !exitsWithin(t, child, 10*time.Second) {
				syscall.Kill(child, syscall.SIGKILL)
				t.Fatalf("child %d still running 10 s after its parent was killed", child)
			}
		})
	}
}

// startParentAndKill runs the test binary as the parent, reads its
// child's PID and kills the parent with SIGKILL.
func startParentAndKill(t *testing.T, die bool) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), parentEnv+"=1")
	if !die {
		// Control: the same parent without the option leaves its child
		// running, so the check in the test can fail.
		cmd.Env = append(cmd.Env, parentOffEnv+"=1")
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("parent said %q: %v", line, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("parent said %q", line)
	}
	cmd.Process.Kill()
	cmd.Wait()
	return pid
}

// exitsWithin waits up to d for pid to exit, on a pidfd (readable once
// the process has exited, zombie or reaped).
func exitsWithin(t *testing.T, pid int, d time.Duration) bool {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if err == unix.ESRCH {
		return true // gone already
	}
	if err != nil {
		t.Fatalf("pidfd_open %d: %v", pid, err)
	}
	defer unix.Close(fd)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for end := time.Now().Add(d); ; {
		left := time.Until(end)
		if left <= 0 {
			return false
		}
		n, err := unix.Poll(fds, int(left.Milliseconds())+1)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			t.Fatalf("poll pidfd: %v", err)
		}
		if n > 0 {
			return true
		}
	}
}

// alive reports whether pid runs: it exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command's closing parenthesis.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] != 'Z'
}
