build-bench/obj/jb-mountd/repo.o: jb-mountd/repo.c libcommon/log.h \
 jb-mountd/repo.h libcommon/jb_msg.h
libcommon/log.h:
jb-mountd/repo.h:
libcommon/jb_msg.h:
