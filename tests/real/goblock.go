// goblock N MS: a Go program with known behaviour for tests/real.  Prints
// its pid, waits for the file named by $WL_GO (when set), then, on a
// locked OS thread, blocks N times for MS ms in main.goSleepHere (the
// nanosleep system call itself, so the thread is off CPU in state S under
// that function) and wakes a reader thread N times from main.goPokeReader
// (a write to a pipe the reader, locked on its own thread, waits on in
// main.goReadHere).  Prints "done N", then waits to be killed (so that the
// tools name its frames while it lives).
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"time"
)

//go:noinline
func goSleepHere(ms int) {
	ts := syscall.NsecToTimespec(int64(ms) * int64(time.Millisecond))
	for syscall.Nanosleep(&ts, &ts) == syscall.EINTR {
	}
}

//go:noinline
func goReadHere(fd int, buf []byte) int {
	n, _ := syscall.Read(fd, buf)
	return n
}

//go:noinline
func goPokeReader(fd int) {
	syscall.Write(fd, []byte{1})
}

func main() {
	n, _ := strconv.Atoi(os.Args[1])
	ms, _ := strconv.Atoi(os.Args[2])
	fmt.Println(os.Getpid())
	if g := os.Getenv("WL_GO"); g != "" {
		for {
			if _, err := os.Stat(g); err == nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil {
		panic(err)
	}
	done := make(chan int)
	go func() {
		runtime.LockOSThread()
		buf := make([]byte, 1)
		got := 0
		for got < n {
			if goReadHere(p[0], buf) == 1 {
				got++
			}
		}
		done <- got
	}()
	runtime.LockOSThread()
	for i := 0; i < n; i++ {
		goSleepHere(ms)
		goPokeReader(p[1])
	}
	fmt.Println("done", <-done)
	for {
		time.Sleep(time.Hour)
	}
}
