build-bench/obj/libcommon/selfstat.o: libcommon/selfstat.c \
 libcommon/proc.h libcommon/imsgev.h libcommon/imsg.h libcommon/jb_msg.h
libcommon/proc.h:
libcommon/imsgev.h:
libcommon/imsg.h:
libcommon/jb_msg.h:
