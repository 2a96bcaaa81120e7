build-bench/obj/jbctl/jbctl.o: jbctl/jbctl.c libcommon/cmdtab.h \
 libcommon/config.h libcommon/imsg.h jbctl/jbctl.h libcommon/jb_msg.h
libcommon/cmdtab.h:
libcommon/config.h:
libcommon/imsg.h:
jbctl/jbctl.h:
libcommon/jb_msg.h:
