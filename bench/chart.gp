# SPDX-License-Identifier: GPL-2.0
# The bench charts (bench/bench.sh sets bars, scale, out_rates, out_scale, subtitle):
# connections/s per capture configuration, IPv4 and IPv6 bars with min-max whiskers; and the
# scale plot, wall time and rate against the number of connections of a `syntwin run`.
set terminal pngcairo size 960,480 font "DejaVu Sans,10"
set output out_rates
set title "Connection rate per capture configuration (median, min-max whiskers)\n".subtitle
set ylabel "connections / s"
set style data histogram
set style histogram errorbars gap 2 lw 1
set style fill solid 0.6 border -1
set yrange [0:*]
set grid ytics
set key top right
plot bars using 2:3:4:xtic(1) title "IPv4", '' using 5:6:7 title "IPv6"

set output out_scale
set title "syntwin run at scale\n".subtitle
set style data linespoints
set logscale x
set xlabel "connections (each also checked in the active direction)"
set ylabel "wall time (s)"
set y2label "connections / s"
set y2tics
set ytics nomirror
set yrange [0:*]
set y2range [0:*]
set key top left
plot scale using 1:2 title "wall time" axes x1y1 lw 2, \
     scale using 1:3 title "connections/s" axes x1y2 lw 2
