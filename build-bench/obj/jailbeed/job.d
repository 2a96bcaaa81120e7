build-bench/obj/jailbeed/job.o: jailbeed/job.c libcommon/cmdtab.h \
 jailbeed/jailbeed.h libcommon/config.h libcommon/imsgev.h \
 libcommon/imsg.h libcommon/jb_msg.h jailbeed/jobs.h libcommon/repoconf.h \
 libcommon/yamltree.h libcommon/log.h
libcommon/cmdtab.h:
jailbeed/jailbeed.h:
libcommon/config.h:
libcommon/imsgev.h:
libcommon/imsg.h:
libcommon/jb_msg.h:
jailbeed/jobs.h:
libcommon/repoconf.h:
libcommon/yamltree.h:
libcommon/log.h:
