package filestat

import "syscall"

func times(st *syscall.Stat_t) Times {
	return Times{Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano()}
}
