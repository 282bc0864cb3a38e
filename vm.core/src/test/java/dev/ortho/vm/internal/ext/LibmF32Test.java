package dev.ortho.vm.internal.ext;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * {@code vm.tanh.f32}, {@code vm.expm1.f32}, {@code vm.erf.f32}, {@code vm.atan.f32} and
 * {@code vm.log1p.f32} give the bits of glibc 2.36's {@code tanhf}, {@code expm1f}, {@code erff},
 * {@code atanf} and {@code log1pf} (what IREE's VM calls), not the correctly rounded ones: found by
 * the ONNX node-test sweep ({@code models/sweep.py}), where {@code test_tanh} differed from IREE in
 * 23 of 60 elements, {@code test_erf} in 162 of 3072, {@code test_atan} in 4 of 60 and
 * {@code test_softplus} (exp, then log1p) in 13 of 60; {@code vm.exp.f32} gives glibc's
 * {@code expf} (2 of 576 elements of {@code test_attention_3d_gqa_with_past_and_present_expanded}),
 * {@code vm.sin.f32} and {@code vm.cos.f32} glibc's {@code sinf} and {@code cosf} ({@code test_sin}
 * 1 of 60; arguments here up to 1e6 and 3e38, through both range reductions; ±inf gives the NaN
 * x86 computes for {@code inf - inf}).
 * The pairs (argument, glibc's result) were printed by glibc 2.36 through Python's ctypes; most are
 * arguments where the correctly rounded result differs, one or more per branch of the algorithms.
 */
class LibmF32Test {
    private static final int[][] TANHF = {
            {0xbf859846, 0xbf478366}, // -1.0437095 -> -0.77934873
            {0xbf8c2873, 0xbf4c76f6}, // -1.0949844 -> -0.7986902
            {0xc000bb76, 0xbf76fee8}, // -2.0114417 -> -0.96482706
            {0xbee0f7ab, 0xbed386dd}, // -0.43938956 -> -0.4131383
            {0xbf66214c, 0xbf373d9f}, // -0.89894557 -> -0.715784
            {0xbf76e4ed, 0xbf3f0a06}, // -0.96443063 -> -0.7462467
            {0xbe8356a4, 0xbe80880f}, // -0.2565204 -> -0.25103804
            {0xbe59e2d1, 0xbe56a7fd}, // -0.2127793 -> -0.2096252
            {0xbe8f19a0, 0xbe8b7ca1}, // -0.27949238 -> -0.27243522
            {0x3df3f03d, 0x3df2ca94}, // 0.11911056 -> 0.11855045
            {0x3da069a2, 0x3da015db}, // 0.07832648 -> 0.078166686
            {0x3e427a9d, 0x3e402c85}, // 0.18992086 -> 0.18766983
            {0x3edb200a, 0x3ecea8b3}, // 0.4279788 -> 0.40363082
            {0x3f384d91, 0x3f1deb13}, // 0.71993357 -> 0.6168682
            {0x3ed6544d, 0x3ecaa11c}, // 0.4186119 -> 0.39576042
            {0x3f8a78bc, 0x3f4b3b02}, // 1.0818095 -> 0.79386914
            {0x3fa6584d, 0x3f5c92a0}, // 1.2995697 -> 0.8616123
            {0x3f862852, 0x3f47f41e}, // 1.0481055 -> 0.7810687
            {0x00000000, 0x00000000}, // 0.0 -> 0.0
            {0x80000000, 0x80000000}, // -0.0 -> -0.0
            {0x0da24260, 0x0da24260}, // 1e-30 -> 1e-30
            {0xb300d959, 0xb300d95a}, // -3e-08 -> -3.0000002e-08
            {0x41f00000, 0x3f800000}, // 30.0 -> 1.0
            {0xc1f00000, 0xbf800000}, // -30.0 -> -1.0
            {0x42c80000, 0x3f800000}, // 100.0 -> 1.0
            {0xc2c80000, 0xbf800000}, // -100.0 -> -1.0
            {0x7f800000, 0x3f800000}, // inf -> 1.0
            {0xff800000, 0xbf800000}, // -inf -> -1.0
            {0x41a00000, 0x3f800000}, // 20.0 -> 1.0
            {0x42b1999a, 0x3f800000}, // 88.8 -> 1.0
            {0xc1200000, 0xbf800000}, // -10.0 -> -1.0
            {0x42700000, 0x3f800000}, // 60.0 -> 1.0
            {0x41200000, 0x3f800000}, // 10.0 -> 1.0
            {0xc0a9999a, 0xbf7ffcbc}, // -5.3 -> -0.9999502
            {0x414b3333, 0x3f800000}, // 12.7 -> 1.0
            {0x3f19999a, 0x3f097c15}, // 0.6 -> 0.5370496
    };

    private static final int[][] EXPM1F = {
            {0xc07d4dde, 0xbf7b1c06}, // -3.9578776 -> -0.98089635
            {0xbfc9b1de, 0xbf4b0b98}, // -1.5757406 -> -0.79314566
            {0xc0358646, 0xbf70fce6}, // -2.8363204 -> -0.9413589
            {0xbf7d5cce, 0xbf20d8fa}, // -0.98969734 -> -0.6283108
            {0xbf748ffa, 0xbf1d8512}, // -0.9553219 -> -0.61531174
            {0xbf797c97, 0xbf1f6560}, // -0.97455734 -> -0.6226406
            {0xbeb22285, 0xbe9672c4}, // -0.3479196 -> -0.29384434
            {0xbe8f19a0, 0xbe79af3a}, // -0.27949238 -> -0.2438325
            {0xbe805418, 0xbe6304fe}, // -0.25064158 -> -0.22169873
            {0x3e427a9d, 0x3e562c70}, // 0.18992086 -> 0.20915389
            {0x3e9d4586, 0x3eb81a04}, // 0.30717105 -> 0.35957348
            {0x3e944eec, 0x3eac057c}, // 0.28966463 -> 0.33597934
            {0x3f667b2a, 0x3fbaedd0}, // 0.90031683 -> 1.4603825
            {0x3f4914ba, 0x3f98c2be}, // 0.7854725 -> 1.1934431
            {0x3f5727bc, 0x3fa8a0e2}, // 0.84045005 -> 1.3174098
            {0x3f801907, 0x3fdc34b8}, // 1.0007638 -> 1.7203588
            {0x403e2032, 0x41940c02}, // 2.970715 -> 18.505863
            {0x40751e71, 0x42343f3c}, // 3.829983 -> 45.061752
            {0x00000000, 0x00000000}, // 0.0 -> 0.0
            {0x80000000, 0x80000000}, // -0.0 -> -0.0
            {0x0da24260, 0x0da24260}, // 1e-30 -> 1e-30
            {0xb300d959, 0xb300d959}, // -3e-08 -> -3e-08
            {0x41f00000, 0x551b8238}, // 30.0 -> 1.0686474e+13
            {0xc1f00000, 0xbf800000}, // -30.0 -> -1.0
            {0x42c80000, 0x7f800000}, // 100.0 -> inf
            {0xc2c80000, 0xbf800000}, // -100.0 -> -1.0
            {0x7f800000, 0x7f800000}, // inf -> inf
            {0xff800000, 0xbf800000}, // -inf -> -1.0
            {0x41a00000, 0x4de75844}, // 20.0 -> 4.851652e+08
            {0x42b1999a, 0x7f800000}, // 88.8 -> inf
            {0xc1200000, 0xbf7ffd06}, // -10.0 -> -0.9999546
            {0x42700000, 0x6abcede5}, // 60.0 -> 1.1420074e+26
            {0x41200000, 0x46ac12ee}, // 10.0 -> 22025.465
            {0xc0a9999a, 0xbf7eb8df}, // -5.3 -> -0.9950084
            {0x414b3333, 0x48a0085b}, // 12.7 -> 327746.84
            {0x3f19999a, 0x3f527662}, // 0.6 -> 0.8221189
    };

    private static final int[][] ERFF = {
            {0x3e259d08, 0x3e394210}, // 0.16173183917999268 -> 0.18091607093811035
            {0x3f50f1d5, 0x3f406977}, // 0.8161900639533997 -> 0.7516092658042908
            {0x3f75a3af, 0x3f534118}, // 0.9595288634300232 -> 0.8252120018005371
            {0x3f8f8552, 0x3f631efe}, // 1.1212561130523682 -> 0.887191653251648
            {0x3fafb0da, 0x3f72a038}, // 1.372584581375122 -> 0.9477572441101074
            {0x3fa0c02e, 0x3f6c9d6e}, // 1.2558648586273193 -> 0.9242771863937378
            {0xbe640bbd, 0xbe7d2176}, // -0.2227010279893875 -> -0.2471979558467865
            {0xbeea0142, 0xbef6c214}, // -0.45704084634780884 -> -0.48194944858551025
            {0xbfbbef1a, 0xbf764efc}, // -1.4682343006134033 -> -0.9621427059173584
            {0xbfadce13, 0xbf71f740}, // -1.3578513860702515 -> -0.9451789855957031
            {0xbf7b9de7, 0xbf55e16e}, // -0.9828781485557556 -> -0.8354710340499878
            {0xbf953fc3, 0xbf669e0e}, // -1.1660083532333374 -> -0.9008492231369019
            {0x00000000, 0x00000000}, // 0.0 -> 0.0
            {0x80000000, 0x80000000}, // -0.0 -> -0.0
            {0x0da24260, 0x0db7170a}, // 1.0000000031710769e-30 -> 1.1283792206876573e-30
            {0xb089705f, 0xb09b1550}, // -9.999999717180685e-10 -> -1.1283791678806665e-09
            {0x02081cea, 0x02199646}, // 9.99999991097579e-38 -> 1.1283791091276185e-37
            {0x40c00000, 0x3f800000}, // 6.0 -> 1.0
            {0xc0f00000, 0xbf800000}, // -7.5 -> -1.0
            {0x7f800000, 0x3f800000}, // inf -> 1.0
            {0xff800000, 0xbf800000}, // -inf -> -1.0
            {0x4039999a, 0x3f7ffd4e}, // 2.9000000953674316 -> 0.999958872795105
            {0xc04ccccd, 0xbf7fff9b}, // -3.200000047683716 -> -0.9999939799308777
            {0x406ccccd, 0x3f7ffffd}, // 3.700000047683716 -> 0.9999998211860657
            {0x3fa00000, 0x3f6c432f}, // 1.25 -> 0.9229001402854919
            {0x3f580000, 0x3f4468e7}, // 0.84375 -> 0.7672256827354431
    };

    private static final int[][] ATANF = {
            {0x3edc8470, 0x3ed03944}, // 0.4306979179382324 -> 0.4066869020462036
            {0x3ece7899, 0x3ec4421c}, // 0.4032638370990753 -> 0.38331687450408936
            {0x3eed5089, 0x3ede38e4}, // 0.4635050594806671 -> 0.4340277910232544
            {0x3f2de3a0, 0x3f18bf26}, // 0.6792545318603516 -> 0.596666693687439
            {0x3f4a1dc1, 0x3f2b16be}, // 0.7895165085792542 -> 0.6683157682418823
            {0x3f9193bd, 0x3f597cb6}, // 1.1373211145401 -> 0.8495591878890991
            {0x4005246d, 0x3f8fb52e}, // 2.080348253250122 -> 1.1227166652679443
            {0x3fa27b88, 0x3f674f40}, // 1.269394874572754 -> 0.9035530090332031
            {0x40681777, 0x3fa69f18}, // 3.626432180404663 -> 1.3017301559448242
            {0x408490ff, 0x3faabe82}, // 4.142699718475342 -> 1.3339388370513916
            {0xc043c48c, 0xbfa09e4a}, // -3.058871269226074 -> -1.2548305988311768
            {0xc020f582, 0xbf989ecc}, // -2.514984607696533 -> -1.1923460960388184
            {0xbf9365f5, 0xbf5b106a}, // -1.151548981666565 -> -0.8557192087173462
            {0xbf454085, 0xbf28108a}, // -0.7705157399177551 -> -0.656502366065979
            {0xbe739fde, 0xbe6f2d8a}, // -0.2379145324230194 -> -0.23357215523719788
            {0xbea20174, 0xbe9ce6f9}, // -0.3164173364639282 -> -0.30644968152046204
            {0x00000000, 0x00000000}, // 0.0 -> 0.0
            {0x80000000, 0x80000000}, // -0.0 -> -0.0
            {0x0da24260, 0x0da24260}, // 1.0000000031710769e-30 -> 1.0000000031710769e-30
            {0x4cbebc20, 0x3fc90fdb}, // 100000000.0 -> 1.5707963705062866
            {0xccbebc20, 0xbfc90fdb}, // -100000000.0 -> -1.5707963705062866
            {0x7f800000, 0x3fc90fdb}, // inf -> 1.5707963705062866
            {0xff800000, 0xbfc90fdb}, // -inf -> -1.5707963705062866
            {0x3f000000, 0x3eed6338}, // 0.5 -> 0.46364760398864746
            {0x3f800000, 0x3f490fdb}, // 1.0 -> 0.7853981852531433
            {0x3fc00000, 0x3f7b985f}, // 1.5 -> 0.9827937483787537
    };

    private static final int[][] LOG1PF = {
            {0xbecf087d, 0xbf04a39e}, // -0.40436163544654846 -> -0.518121600151062
            {0xbf1e1e83, 0xbf762012}, // -0.6176530718803406 -> -0.961426854133606
            {0xbe723134, 0xbe8a2b78}, // -0.2365158200263977 -> -0.2698628902435303
            {0xbde71da8, 0xbdf53a9a}, // -0.11284953355789185 -> -0.11974067986011505
            {0x3e976735, 0x3e84a348}, // 0.2957092821598053 -> 0.25905823707580566
            {0x3ebfb2ef, 0x3ea2d44e}, // 0.37441202998161316 -> 0.31802600622177124
            {0x3f3715b5, 0x3f0a1daa}, // 0.7151749730110168 -> 0.5395151376724243
            {0x3f477d4c, 0x3f138186}, // 0.7792556285858154 -> 0.5761951208114624
            {0x408d0e5c, 0x3fd80c72}, // 4.408002853393555 -> 1.6878798007965088
            {0x40980ae9, 0x3fdfed5e}, // 4.751331806182861 -> 1.7494313716888428
            {0x00000000, 0x00000000}, // 0.0 -> 0.0
            {0x80000000, 0x80000000}, // -0.0 -> -0.0
            {0x0da24260, 0x0da24260}, // 1.0000000031710769e-30 -> 1.0000000031710769e-30
            {0xb14e288f, 0xb14e288f}, // -3.000000026176508e-09 -> -3.000000026176508e-09
            {0x358637bd, 0x358637b9}, // 9.999999974752427e-07 -> 9.999995427278918e-07
            {0x60ad78ec, 0x423834f1}, // 1.0000000200408773e+20 -> 46.051700592041016
            {0x7f800000, 0x7f800000}, // inf -> inf
            {0xbf800000, 0xff800000}, // -1.0 -> -inf
            {0x40400000, 0x3fb17218}, // 3.0 -> 1.3862943649291992
    };

    private static final int[][] EXPF = {
            {0xc2b10000, 0x0027fce2}, // -88.5 -> 3.672301610145117e-39
            {0xc2cf0000, 0x00000001}, // -103.5 -> 1.401298464324817e-45
            {0x42b16666, 0x7f7a37fc}, // 88.69999694824219 -> 3.325976864406685e+38
            {0x80000000, 0x3f800000}, // -0.0 -> 1.0
            {0x1e3ce508, 0x3f800000}, // 9.999999682655225e-21 -> 1.0
            {0xc16d70b7, 0x34c0b8e5}, // -14.840018272399902 -> 3.5897315342481306e-07
            {0xc1293efb, 0x37d5afb2}, // -10.577876091003418 -> 2.5473393179709092e-05
            {0xbf9edc55, 0x3e940082}, // -1.2410989999771118 -> 0.2890663743019104
            {0xc13f6d79, 0x36d5ac9e}, // -11.964226722717285 -> 6.367989954014774e-06
            {0x4030ff16, 0x417e3595}, // 2.7655692100524902 -> 15.888081550598145
            {0x418e7529, 0x4c4e8d9d}, // 17.807207107543945 -> 54146676.0
            {0x40a41838, 0x4328ac0d}, // 5.127956390380859 -> 168.6720733642578
            {0x41434c97, 0x4843564d}, // 12.206198692321777 -> 200025.203125
            {0x7f800000, 0x7f800000}, // inf -> inf
            {0xff800000, 0x00000000}, // -inf -> 0
            {0x42b20000, 0x7f800000}, // 89 -> inf
            {0xc2d00000, 0x00000000}, // -104 -> 0
    };

    private static final int[][] SINF = {
            {0x3e554341, 0x3e53b971}, // 0.20826436579227448 -> 0.20676209032535553
            {0x3f010ac9, 0x3ef74afe}, // 0.5040708184242249 -> 0.482994019985199
            {0xbf3febfe, 0xbf2e713d}, // -0.7496947050094604 -> -0.6814153790473938
            {0x42c29998, 0x3db6d0d4}, // 97.29998779296875 -> 0.08926549553871155
            {0x42cee0f6, 0x3e6c9e7e}, // 103.43937683105469 -> 0.23107334971427917
            {0x428fdcf5, 0x3ea385ad}, // 71.93155670166016 -> 0.3193792402744293
            {0xc26399a1, 0xbeb037c5}, // -56.900028228759766 -> -0.3441754877567291
            {0xc2182638, 0xbea9e1b5}, // -38.037322998046875 -> -0.3318001329898834
            {0xc2a3f325, 0xbe941d86}, // -81.97489166259766 -> -0.2892877459526062
            {0x43452bcd, 0x3f2e5b71}, // 197.1710968017578 -> 0.6810827851295471
            {0x432d155d, 0xbe9546fd}, // 173.0834503173828 -> -0.2915572226047516
            {0x4323b88f, 0x3eb375db}, // 163.72093200683594 -> 0.35050854086875916
            {0xc310f936, 0xbee366c9}, // -144.97348022460938 -> -0.4441435635089874
            {0xc32fa045, 0x3e98d6e3}, // -175.6260528564453 -> 0.2985144555568695
            {0xc3402aea, 0x3f0185d6}, // -192.16763305664062 -> 0.5059484243392944
            {0x00000000, 0x00000000}, // 0.0 -> 0.0
            {0x80000000, 0x80000000}, // -0.0 -> -0.0
            {0x3727c5ac, 0x3727c5ac}, // 9.999999747378752e-06 -> 9.999999747378752e-06
            {0x8da24260, 0x8da24260}, // -1.0000000031710769e-30 -> -1.0000000031710769e-30
            {0x7f61b1e6, 0x3f5ff9c4}, // 3.0000000054977558e+38 -> 0.8749048709869385
            {0xd05f8476, 0x3f3f3784}, // -15000000512.0 -> 0.7469408512115479
            {0x7f800000, 0xffc00000}, // inf -> nan
    };

    private static final int[][] COSF = {
            {0x42d2e66b, 0x3e522353}, // 105.45003509521484 -> 0.20521287620067596
            {0x4281424a, 0xbe664757}, // 64.62947082519531 -> -0.22488151490688324
            {0x42ea79a4, 0xbf0a9b9a}, // 117.23757934570312 -> -0.5414367914199829
            {0xc2866f02, 0xbea4aa24}, // -67.21681213378906 -> -0.32161056995391846
            {0xc2ad515c, 0x3e862684}, // -86.65890502929688 -> 0.2620126008987427
            {0xc016c60a, 0xbf34f465}, // -2.355837345123291 -> -0.7068541646003723
            {0x4330f1f4, 0x3f06ddb5}, // 176.94512939453125 -> 0.5268204808235168
            {0x432aeb8b, 0x3e95b23d}, // 170.9200897216797 -> 0.29237547516822815
            {0x4322121c, 0x3e8cdcfb}, // 162.07073974609375 -> 0.2751234471797943
            {0xc338449e, 0xbeeea348}, // -184.26803588867188 -> -0.46608948707580566
            {0xc334e5d8, 0x3e81c4c6}, // -180.8978271484375 -> 0.25345438718795776
            {0xc30c5b9c, 0xbf0753c0}, // -140.35784912109375 -> -0.5286216735839844
            {0x00000000, 0x3f800000}, // 0.0 -> 1.0
            {0x80000000, 0x3f800000}, // -0.0 -> 1.0
            {0x3727c5ac, 0x3f800000}, // 9.999999747378752e-06 -> 1.0
            {0x8da24260, 0x3f800000}, // -1.0000000031710769e-30 -> 1.0
            {0x7f61b1e6, 0xbef7f57c}, // 3.0000000054977558e+38 -> -0.4842947721481323
            {0xd05f8476, 0x3f2a3643}, // -15000000512.0 -> 0.664890468120575
            {0x7f800000, 0xffc00000}, // inf -> nan
    };

    @Test
    void tanhGivesGlibcsBits() {
        for (int[] pair : TANHF) {
            float x = Float.intBitsToFloat(pair[0]);
            assertEquals(Integer.toHexString(pair[1]),
                    Integer.toHexString(Float.floatToRawIntBits(ExtF32Extension.tanh(x))), () -> "tanhf(" + x + ")");
        }
        assertEquals(Float.NaN, ExtF32Extension.tanh(Float.NaN));
    }

    @Test
    void expm1GivesGlibcsBits() {
        for (int[] pair : EXPM1F) {
            float x = Float.intBitsToFloat(pair[0]);
            assertEquals(Integer.toHexString(pair[1]),
                    Integer.toHexString(Float.floatToRawIntBits(ExtF32Extension.expm1(x))), () -> "expm1f(" + x + ")");
        }
        assertEquals(Float.NaN, ExtF32Extension.expm1(Float.NaN));
    }

    @Test
    void erfGivesGlibcsBits() {
        for (int[] pair : ERFF) {
            float x = Float.intBitsToFloat(pair[0]);
            assertEquals(Integer.toHexString(pair[1]),
                    Integer.toHexString(Float.floatToRawIntBits(ExtF32Extension.erf(x))), () -> "erff(" + x + ")");
        }
        assertEquals(Float.NaN, ExtF32Extension.erf(Float.NaN));
    }

    @Test
    void atanGivesGlibcsBits() {
        for (int[] pair : ATANF) {
            float x = Float.intBitsToFloat(pair[0]);
            assertEquals(Integer.toHexString(pair[1]),
                    Integer.toHexString(Float.floatToRawIntBits(ExtF32Extension.atan(x))), () -> "atanf(" + x + ")");
        }
        assertEquals(Float.NaN, ExtF32Extension.atan(Float.NaN));
    }

    @Test
    void log1pGivesGlibcsBits() {
        for (int[] pair : LOG1PF) {
            float x = Float.intBitsToFloat(pair[0]);
            assertEquals(Integer.toHexString(pair[1]),
                    Integer.toHexString(Float.floatToRawIntBits(ExtF32Extension.log1p(x))), () -> "log1pf(" + x + ")");
        }
        assertEquals(Float.NaN, ExtF32Extension.log1p(Float.NaN));
        assertEquals(Float.NaN, ExtF32Extension.log1p(-2.0f));
    }

    @Test
    void expGivesGlibcsBits() {
        for (int[] pair : EXPF) {
            float x = Float.intBitsToFloat(pair[0]);
            assertEquals(Integer.toHexString(pair[1]),
                    Integer.toHexString(Float.floatToRawIntBits(ExtF32Extension.exp(x))), () -> "expf(" + x + ")");
        }
        assertEquals(Float.NaN, ExtF32Extension.exp(Float.NaN));
    }

    @Test
    void sinAndCosGiveGlibcsBits() {
        for (int[] pair : SINF) {
            float x = Float.intBitsToFloat(pair[0]);
            assertEquals(Integer.toHexString(pair[1]),
                    Integer.toHexString(Float.floatToRawIntBits(ExtF32Extension.sin(x))), () -> "sinf(" + x + ")");
        }
        for (int[] pair : COSF) {
            float x = Float.intBitsToFloat(pair[0]);
            assertEquals(Integer.toHexString(pair[1]),
                    Integer.toHexString(Float.floatToRawIntBits(ExtF32Extension.cos(x))), () -> "cosf(" + x + ")");
        }
        assertEquals(Float.NaN, ExtF32Extension.sin(Float.NaN));
    }
}
