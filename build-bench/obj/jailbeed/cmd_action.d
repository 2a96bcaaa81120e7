build-bench/obj/jailbeed/cmd_action.o: jailbeed/cmd_action.c \
 jailbeed/capture.h jailbeed/jailbeed.h libcommon/config.h \
 libcommon/imsgev.h libcommon/imsg.h libcommon/jb_msg.h \
 libcommon/cmdtab.h jailbeed/jobs.h libcommon/repoconf.h \
 libcommon/yamltree.h libcommon/log.h
jailbeed/capture.h:
jailbeed/jailbeed.h:
libcommon/config.h:
libcommon/imsgev.h:
libcommon/imsg.h:
libcommon/jb_msg.h:
libcommon/cmdtab.h:
jailbeed/jobs.h:
libcommon/repoconf.h:
libcommon/yamltree.h:
libcommon/log.h:
