build-bench/obj/jbctl/remote.o: jbctl/remote.c libcommon/cmdtab.h \
 libcommon/imsg.h jbctl/jbctl.h libcommon/jb_msg.h jbctl/term.h
libcommon/cmdtab.h:
libcommon/imsg.h:
jbctl/jbctl.h:
libcommon/jb_msg.h:
jbctl/term.h:
