build-bench/obj/jbctl/term.o: jbctl/term.c libcommon/imsg.h \
 libcommon/jb_msg.h jbctl/term.h
libcommon/imsg.h:
libcommon/jb_msg.h:
jbctl/term.h:
