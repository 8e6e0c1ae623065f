# Sourced by scripts/build-jar.sh and scripts/test-java.sh: how they start the JDK's tools.
#
# Every JVM they start (javac, jar, the JUnit launcher) is short-lived: the first compiler tier
# alone and the serial collector do such a JVM's work for less CPU than the defaults (C2
# compiling, parallel GC threads).
short_jvm=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC)

# jdk_tool TOOL ARGS...: runs a JDK tool (javac, jar) with those options for its JVM.
jdk_tool() { "$1" "${short_jvm[@]/#/-J}" "${@:2}"; }
