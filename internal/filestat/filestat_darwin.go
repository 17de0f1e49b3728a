package filestat

import "syscall"

func times(st *syscall.Stat_t) Times {
	return Times{Mtime: st.Mtimespec.Nano(), Ctime: st.Ctimespec.Nano()}
}
