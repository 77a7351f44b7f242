# SPDX-License-Identifier: GPL-2.0
# The capture points study's plot (bench/study.sh sets dat, out, subtitle): each point's cost
# alone in connection rate, IPv4 and IPv6 bars, and its program's ns per connection.
set terminal pngcairo size 960,480 font "DejaVu Sans,10"
set output out
set title "Capture points: what each costs alone (median of interleaved rounds)\n".subtitle
set ylabel "connection rate cost (%)"
set y2label "program ns per connection"
set style data histogram
set style histogram clustered gap 2
set style fill solid 0.6 border -1
set yrange [*:*]
set y2range [0:*]
set ytics nomirror
set y2tics
set grid ytics
set key top left
plot dat using 2:xtic(1) title "cost IPv4", '' using 3 title "cost IPv6", \
     '' using 4 title "ns/connection (BPF)" axes x1y2
