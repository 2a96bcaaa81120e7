build-bench/obj/jailbeed/cmd_config.o: jailbeed/cmd_config.c \
 libcommon/cmdtab.h jailbeed/jobs.h jailbeed/jailbeed.h \
 libcommon/config.h libcommon/imsgev.h libcommon/imsg.h \
 libcommon/jb_msg.h libcommon/repoconf.h libcommon/yamltree.h \
 libcommon/log.h
libcommon/cmdtab.h:
jailbeed/jobs.h:
jailbeed/jailbeed.h:
libcommon/config.h:
libcommon/imsgev.h:
libcommon/imsg.h:
libcommon/jb_msg.h:
libcommon/repoconf.h:
libcommon/yamltree.h:
libcommon/log.h:
