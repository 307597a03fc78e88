"""What real devices put in one gNMI notification, as recorded: the leaves in the order they came.

The simulator's `recorded` shape (flavours.py) sends these, so that a bench pays the per-message cost
real devices cause. Names and order are copied from the recordings in ../shared/fixtures (see
SOURCES.md there); the containers nobody recorded carry their model's leaves, named as such.
"""

from __future__ import annotations

# Telegraf testcase issue_14530 (an EOS-style Ethernet35): /interfaces/interface[name=P]/state/counters,
# nanosecond timestamps, every value a uint
OC_KEYED_COUNTERS = (
    "in-broadcast-pkts", "in-discards", "in-errors", "in-fcs-errors", "in-multicast-pkts", "in-octets", "in-pkts",
    "in-unicast-pkts", "out-broadcast-pkts", "out-discards", "out-errors", "out-multicast-pkts", "out-octets",
    "out-pkts", "out-unicast-pkts",
)

# Telegraf testcases issue_14063 and issue_16476 (Ciena): oc-if: module names, no key on the interface
# element, the port in a quoted "name" leaf among the counters, millisecond timestamps
OC_NAMED_COUNTERS = (
    "in-1024-to-1518-octet-pkts", "in-128-to-255-octet-pkts", "in-1519-to-2047-octet-pkts",
    "in-2048-to-4095-octet-pkts", "in-256-to-511-octet-pkts", "in-4096-to-9216-octet-pkts",
    "in-512-to-1023-octet-pkts", "in-64-octet-pkts", "in-65-to-127-octet-pkts", "in-broadcast-pkts",
    "in-crc-error-pkts", "in-discards", "in-discards-octets", "in-dropped-octets", "in-dropped-pkts", "in-errors",
    "in-jabber-pkts", "in-multicast-pkts", "in-octets", "in-oversize-pkts", "in-pkts", "in-undersize-pkts",
    "in-unicast-pkts", "last-clear", "link-flap-events", "name", "out-1519-to-2047-octet-pkts",
    "out-2048-to-4095-octet-pkts", "out-4096-to-9216-octet-pkts", "out-broadcast-pkts", "out-errors",
    "out-multicast-pkts", "out-octets", "out-pkts", "out-unicast-pkts",
)
OC_NAMED_MODULE = "oc-if"

# not recorded: openconfig-if-ethernet's interfaces/interface/ethernet/state/counters (2.x model leaves)
OC_ETHERNET_COUNTERS = (
    "in-mac-control-frames", "in-mac-pause-frames", "in-oversize-frames", "in-jabber-frames", "in-fragment-frames",
    "in-8021q-frames", "in-crc-errors", "out-mac-control-frames", "out-mac-pause-frames", "out-8021q-frames",
)

# not recorded: openconfig-qos output queue state leaves, one notification per queue
OC_QUEUE_STATE = ("name", "transmit-pkts", "transmit-octets", "dropped-pkts", "dropped-octets", "ecn-marked-pkts")

# ../shared/fixtures/sonic/COUNTERS:Ethernet68.txt (sonic-gnmi testdata): every field of COUNTERS:<port>
SONIC_PORT_FIELDS = (
    *(f"SAI_PORT_STAT_ETHER_{d}_PKTS_{b}_OCTETS" for d in ("IN", "OUT") for b in (
        "1024_TO_1518", "128_TO_255", "1519_TO_2047", "2048_TO_4095", "256_TO_511", "4096_TO_9216", "512_TO_1023",
        "64", "65_TO_127", "9217_TO_16383")),
    "SAI_PORT_STAT_ETHER_RX_OVERSIZE_PKTS", "SAI_PORT_STAT_ETHER_STATS_BROADCAST_PKTS",
    "SAI_PORT_STAT_ETHER_STATS_COLLISIONS", "SAI_PORT_STAT_ETHER_STATS_CRC_ALIGN_ERRORS",
    "SAI_PORT_STAT_ETHER_STATS_DROP_EVENTS", "SAI_PORT_STAT_ETHER_STATS_FRAGMENTS", "SAI_PORT_STAT_ETHER_STATS_JABBERS",
    "SAI_PORT_STAT_ETHER_STATS_MULTICAST_PKTS", "SAI_PORT_STAT_ETHER_STATS_OCTETS",
    "SAI_PORT_STAT_ETHER_STATS_OVERSIZE_PKTS", "SAI_PORT_STAT_ETHER_STATS_PKTS",
    *(f"SAI_PORT_STAT_ETHER_STATS_PKTS_{b}_OCTETS" for b in (
        "1024_TO_1518", "128_TO_255", "1519_TO_2047", "2048_TO_4095", "256_TO_511", "4096_TO_9216", "512_TO_1023",
        "64", "65_TO_127", "9217_TO_16383")),
    "SAI_PORT_STAT_ETHER_STATS_RX_NO_ERRORS", "SAI_PORT_STAT_ETHER_STATS_TX_NO_ERRORS",
    "SAI_PORT_STAT_ETHER_STATS_UNDERSIZE_PKTS", "SAI_PORT_STAT_ETHER_TX_OVERSIZE_PKTS",
    *(f"SAI_PORT_STAT_IF_{d}_{f}" for d, fs in (
        ("IN", ("BROADCAST_PKTS", "DISCARDS", "ERRORS", "MULTICAST_PKTS", "NON_UCAST_PKTS", "OCTETS", "UCAST_PKTS",
                "UNKNOWN_PROTOS", "VLAN_DISCARDS")),
        ("OUT", ("BROADCAST_PKTS", "DISCARDS", "ERRORS", "MULTICAST_PKTS", "NON_UCAST_PKTS", "OCTETS", "QLEN",
                 "UCAST_PKTS"))) for f in fs),
    *(f"SAI_PORT_STAT_IPV6_{f}" for f in (
        "IN_DISCARDS", "IN_MCAST_PKTS", "IN_NON_UCAST_PKTS", "IN_OCTETS", "IN_RECEIVES", "IN_UCAST_PKTS",
        "OUT_DISCARDS", "OUT_MCAST_PKTS", "OUT_NON_UCAST_PKTS", "OUT_OCTETS", "OUT_UCAST_PKTS")),
    *(f"SAI_PORT_STAT_IP_{f}" for f in (
        "IN_DISCARDS", "IN_NON_UCAST_PKTS", "IN_OCTETS", "IN_RECEIVES", "IN_UCAST_PKTS", "OUT_DISCARDS",
        "OUT_NON_UCAST_PKTS", "OUT_OCTETS", "OUT_UCAST_PKTS")),
    *(f"SAI_PORT_STAT_PFC_{p}_{f}" for p in range(8) for f in ("ON2OFF_RX_PKTS", "RX_PKTS", "TX_PKTS")),
)
