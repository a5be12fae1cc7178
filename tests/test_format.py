"""Array repr/str formats.

The expected strings in CASES and the seed/random/print-option tests were printed by JAX 0.10.2
(numpy 2.4, ml_dtypes 0.6) for a jax.Array holding the same value. JAX has no float0 Array; its
float0 values are numpy arrays printed with ``dtype.name`` ('void'), which ember follows.
"""
import collections

import ml_dtypes
import numpy as np
import pytest

from ember.backend.format import array_repr, array_str

bfloat16 = ml_dtypes.bfloat16
float16 = np.float16
float8_e4m3fn = ml_dtypes.float8_e4m3fn
float8_e5m2 = ml_dtypes.float8_e5m2
int4 = ml_dtypes.int4
uint4 = ml_dtypes.uint4

Case = collections.namedtuple("Case", "value weak expected_repr expected_str")

CASES = [
    Case(np.array([1., 2.], np.float32), False,
         'Array([1., 2.], dtype=float32)',
         '[1. 2.]'),
    Case(np.array(2., np.float32), True,
         'Array(2., dtype=float32, weak_type=True)',
         '2.0'),
    Case(np.array(2., np.float32), False,
         'Array(2., dtype=float32)',
         '2.0'),
    Case(np.array([1, 2, 3], np.int32), False,
         'Array([1, 2, 3], dtype=int32)',
         '[1 2 3]'),
    Case(np.array(1, np.int32), True,
         'Array(1, dtype=int32, weak_type=True)',
         '1'),
    Case(np.array(True), False,
         'Array(True, dtype=bool)',
         'True'),
    Case(np.array([True, False]), False,
         'Array([ True, False], dtype=bool)',
         '[ True False]'),
    Case(np.array([1+2j], np.complex64), False,
         'Array([1.+2.j], dtype=complex64)',
         '[1.+2.j]'),
    Case(np.array([[1., 2.], [3., 4.]], np.float32), False,
         ('Array([[1., 2.],\n'
          '       [3., 4.]], dtype=float32)'),
         ('[[1. 2.]\n'
          ' [3. 4.]]')),
    Case(np.array([1., 3., 4., 4., 4., 4., 4., 4., 4., 4., 3., 1.], np.float32), False,
         'Array([1., 3., 4., 4., 4., 4., 4., 4., 4., 4., 3., 1.], dtype=float32)',
         '[1. 3. 4. 4. 4. 4. 4. 4. 4. 4. 3. 1.]'),
    Case(np.array([-0.10570311, -0.59403396, -0.8680282 , -0.23489487], np.float32), False,
         'Array([-0.10570311, -0.59403396, -0.8680282 , -0.23489487], dtype=float32)',
         '[-0.10570311 -0.59403396 -0.8680282  -0.23489487]'),
    Case(np.array([0.25773212, 5.3623195 , 5.403243  ], np.float32), False,
         'Array([0.25773212, 5.3623195 , 5.403243  ], dtype=float32)',
         '[0.25773212 5.3623195  5.403243  ]'),
    Case(np.zeros((1000, 1000), np.float32), False,
         ('Array([[0., 0., 0., ..., 0., 0., 0.],\n'
          '       [0., 0., 0., ..., 0., 0., 0.],\n'
          '       [0., 0., 0., ..., 0., 0., 0.],\n'
          '       ...,\n'
          '       [0., 0., 0., ..., 0., 0., 0.],\n'
          '       [0., 0., 0., ..., 0., 0., 0.],\n'
          '       [0., 0., 0., ..., 0., 0., 0.]], dtype=float32)'),
         ('[[0. 0. 0. ... 0. 0. 0.]\n'
          ' [0. 0. 0. ... 0. 0. 0.]\n'
          ' [0. 0. 0. ... 0. 0. 0.]\n'
          ' ...\n'
          ' [0. 0. 0. ... 0. 0. 0.]\n'
          ' [0. 0. 0. ... 0. 0. 0.]\n'
          ' [0. 0. 0. ... 0. 0. 0.]]')),
    Case(np.arange(1000000, dtype=np.float32).reshape(1000, 1000), False,
         ('Array([[0.00000e+00, 1.00000e+00, 2.00000e+00, ..., 9.97000e+02,\n'
          '        9.98000e+02, 9.99000e+02],\n'
          '       [1.00000e+03, 1.00100e+03, 1.00200e+03, ..., 1.99700e+03,\n'
          '        1.99800e+03, 1.99900e+03],\n'
          '       [2.00000e+03, 2.00100e+03, 2.00200e+03, ..., 2.99700e+03,\n'
          '        2.99800e+03, 2.99900e+03],\n'
          '       ...,\n'
          '       [9.97000e+05, 9.97001e+05, 9.97002e+05, ..., 9.97997e+05,\n'
          '        9.97998e+05, 9.97999e+05],\n'
          '       [9.98000e+05, 9.98001e+05, 9.98002e+05, ..., 9.98997e+05,\n'
          '        9.98998e+05, 9.98999e+05],\n'
          '       [9.99000e+05, 9.99001e+05, 9.99002e+05, ..., 9.99997e+05,\n'
          '        9.99998e+05, 9.99999e+05]], dtype=float32)'),
         ('[[0.00000e+00 1.00000e+00 2.00000e+00 ... 9.97000e+02 9.98000e+02\n'
          '  9.99000e+02]\n'
          ' [1.00000e+03 1.00100e+03 1.00200e+03 ... 1.99700e+03 1.99800e+03\n'
          '  1.99900e+03]\n'
          ' [2.00000e+03 2.00100e+03 2.00200e+03 ... 2.99700e+03 2.99800e+03\n'
          '  2.99900e+03]\n'
          ' ...\n'
          ' [9.97000e+05 9.97001e+05 9.97002e+05 ... 9.97997e+05 9.97998e+05\n'
          '  9.97999e+05]\n'
          ' [9.98000e+05 9.98001e+05 9.98002e+05 ... 9.98997e+05 9.98998e+05\n'
          '  9.98999e+05]\n'
          ' [9.99000e+05 9.99001e+05 9.99002e+05 ... 9.99997e+05 9.99998e+05\n'
          '  9.99999e+05]]')),
    Case(np.arange(2000, dtype=np.int32), False,
         'Array([   0,    1,    2, ..., 1997, 1998, 1999], dtype=int32)',
         '[   0    1    2 ... 1997 1998 1999]'),
    Case(np.arange(1001, dtype=np.float32), False,
         'Array([   0.,    1.,    2., ...,  998.,  999., 1000.], dtype=float32)',
         '[   0.    1.    2. ...  998.  999. 1000.]'),
    Case(np.arange(24., dtype=np.float32).reshape(2, 3, 4), False,
         ('Array([[[ 0.,  1.,  2.,  3.],\n'
          '        [ 4.,  5.,  6.,  7.],\n'
          '        [ 8.,  9., 10., 11.]],\n'
          '\n'
          '       [[12., 13., 14., 15.],\n'
          '        [16., 17., 18., 19.],\n'
          '        [20., 21., 22., 23.]]], dtype=float32)'),
         ('[[[ 0.  1.  2.  3.]\n'
          '  [ 4.  5.  6.  7.]\n'
          '  [ 8.  9. 10. 11.]]\n'
          '\n'
          ' [[12. 13. 14. 15.]\n'
          '  [16. 17. 18. 19.]\n'
          '  [20. 21. 22. 23.]]]')),
    Case(np.arange(100., dtype=np.float32).reshape(2, 50), False,
         ('Array([[ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12.,\n'
          '        13., 14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25.,\n'
          '        26., 27., 28., 29., 30., 31., 32., 33., 34., 35., 36., 37., 38.,\n'
          '        39., 40., 41., 42., 43., 44., 45., 46., 47., 48., 49.],\n'
          '       [50., 51., 52., 53., 54., 55., 56., 57., 58., 59., 60., 61., 62.,\n'
          '        63., 64., 65., 66., 67., 68., 69., 70., 71., 72., 73., 74., 75.,\n'
          '        76., 77., 78., 79., 80., 81., 82., 83., 84., 85., 86., 87., 88.,\n'
          '        89., 90., 91., 92., 93., 94., 95., 96., 97., 98., 99.]],      dtype=float32)'),
         ('[[ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10. 11. 12. 13. 14. 15. 16. 17.\n'
          '  18. 19. 20. 21. 22. 23. 24. 25. 26. 27. 28. 29. 30. 31. 32. 33. 34. 35.\n'
          '  36. 37. 38. 39. 40. 41. 42. 43. 44. 45. 46. 47. 48. 49.]\n'
          ' [50. 51. 52. 53. 54. 55. 56. 57. 58. 59. 60. 61. 62. 63. 64. 65. 66. 67.\n'
          '  68. 69. 70. 71. 72. 73. 74. 75. 76. 77. 78. 79. 80. 81. 82. 83. 84. 85.\n'
          '  86. 87. 88. 89. 90. 91. 92. 93. 94. 95. 96. 97. 98. 99.]]')),
    Case(np.arange(2*3*4*5, dtype=np.int32).reshape(2, 3, 4, 5), False,
         ('Array([[[[  0,   1,   2,   3,   4],\n'
          '         [  5,   6,   7,   8,   9],\n'
          '         [ 10,  11,  12,  13,  14],\n'
          '         [ 15,  16,  17,  18,  19]],\n'
          '\n'
          '        [[ 20,  21,  22,  23,  24],\n'
          '         [ 25,  26,  27,  28,  29],\n'
          '         [ 30,  31,  32,  33,  34],\n'
          '         [ 35,  36,  37,  38,  39]],\n'
          '\n'
          '        [[ 40,  41,  42,  43,  44],\n'
          '         [ 45,  46,  47,  48,  49],\n'
          '         [ 50,  51,  52,  53,  54],\n'
          '         [ 55,  56,  57,  58,  59]]],\n'
          '\n'
          '\n'
          '       [[[ 60,  61,  62,  63,  64],\n'
          '         [ 65,  66,  67,  68,  69],\n'
          '         [ 70,  71,  72,  73,  74],\n'
          '         [ 75,  76,  77,  78,  79]],\n'
          '\n'
          '        [[ 80,  81,  82,  83,  84],\n'
          '         [ 85,  86,  87,  88,  89],\n'
          '         [ 90,  91,  92,  93,  94],\n'
          '         [ 95,  96,  97,  98,  99]],\n'
          '\n'
          '        [[100, 101, 102, 103, 104],\n'
          '         [105, 106, 107, 108, 109],\n'
          '         [110, 111, 112, 113, 114],\n'
          '         [115, 116, 117, 118, 119]]]], dtype=int32)'),
         ('[[[[  0   1   2   3   4]\n'
          '   [  5   6   7   8   9]\n'
          '   [ 10  11  12  13  14]\n'
          '   [ 15  16  17  18  19]]\n'
          '\n'
          '  [[ 20  21  22  23  24]\n'
          '   [ 25  26  27  28  29]\n'
          '   [ 30  31  32  33  34]\n'
          '   [ 35  36  37  38  39]]\n'
          '\n'
          '  [[ 40  41  42  43  44]\n'
          '   [ 45  46  47  48  49]\n'
          '   [ 50  51  52  53  54]\n'
          '   [ 55  56  57  58  59]]]\n'
          '\n'
          '\n'
          ' [[[ 60  61  62  63  64]\n'
          '   [ 65  66  67  68  69]\n'
          '   [ 70  71  72  73  74]\n'
          '   [ 75  76  77  78  79]]\n'
          '\n'
          '  [[ 80  81  82  83  84]\n'
          '   [ 85  86  87  88  89]\n'
          '   [ 90  91  92  93  94]\n'
          '   [ 95  96  97  98  99]]\n'
          '\n'
          '  [[100 101 102 103 104]\n'
          '   [105 106 107 108 109]\n'
          '   [110 111 112 113 114]\n'
          '   [115 116 117 118 119]]]]')),
    Case(np.arange(20*20*20, dtype=np.int32).reshape(20, 20, 20), False,
         ('Array([[[   0,    1,    2, ...,   17,   18,   19],\n'
          '        [  20,   21,   22, ...,   37,   38,   39],\n'
          '        [  40,   41,   42, ...,   57,   58,   59],\n'
          '        ...,\n'
          '        [ 340,  341,  342, ...,  357,  358,  359],\n'
          '        [ 360,  361,  362, ...,  377,  378,  379],\n'
          '        [ 380,  381,  382, ...,  397,  398,  399]],\n'
          '\n'
          '       [[ 400,  401,  402, ...,  417,  418,  419],\n'
          '        [ 420,  421,  422, ...,  437,  438,  439],\n'
          '        [ 440,  441,  442, ...,  457,  458,  459],\n'
          '        ...,\n'
          '        [ 740,  741,  742, ...,  757,  758,  759],\n'
          '        [ 760,  761,  762, ...,  777,  778,  779],\n'
          '        [ 780,  781,  782, ...,  797,  798,  799]],\n'
          '\n'
          '       [[ 800,  801,  802, ...,  817,  818,  819],\n'
          '        [ 820,  821,  822, ...,  837,  838,  839],\n'
          '        [ 840,  841,  842, ...,  857,  858,  859],\n'
          '        ...,\n'
          '        [1140, 1141, 1142, ..., 1157, 1158, 1159],\n'
          '        [1160, 1161, 1162, ..., 1177, 1178, 1179],\n'
          '        [1180, 1181, 1182, ..., 1197, 1198, 1199]],\n'
          '\n'
          '       ...,\n'
          '\n'
          '       [[6800, 6801, 6802, ..., 6817, 6818, 6819],\n'
          '        [6820, 6821, 6822, ..., 6837, 6838, 6839],\n'
          '        [6840, 6841, 6842, ..., 6857, 6858, 6859],\n'
          '        ...,\n'
          '        [7140, 7141, 7142, ..., 7157, 7158, 7159],\n'
          '        [7160, 7161, 7162, ..., 7177, 7178, 7179],\n'
          '        [7180, 7181, 7182, ..., 7197, 7198, 7199]],\n'
          '\n'
          '       [[7200, 7201, 7202, ..., 7217, 7218, 7219],\n'
          '        [7220, 7221, 7222, ..., 7237, 7238, 7239],\n'
          '        [7240, 7241, 7242, ..., 7257, 7258, 7259],\n'
          '        ...,\n'
          '        [7540, 7541, 7542, ..., 7557, 7558, 7559],\n'
          '        [7560, 7561, 7562, ..., 7577, 7578, 7579],\n'
          '        [7580, 7581, 7582, ..., 7597, 7598, 7599]],\n'
          '\n'
          '       [[7600, 7601, 7602, ..., 7617, 7618, 7619],\n'
          '        [7620, 7621, 7622, ..., 7637, 7638, 7639],\n'
          '        [7640, 7641, 7642, ..., 7657, 7658, 7659],\n'
          '        ...,\n'
          '        [7940, 7941, 7942, ..., 7957, 7958, 7959],\n'
          '        [7960, 7961, 7962, ..., 7977, 7978, 7979],\n'
          '        [7980, 7981, 7982, ..., 7997, 7998, 7999]]], dtype=int32)'),
         ('[[[   0    1    2 ...   17   18   19]\n'
          '  [  20   21   22 ...   37   38   39]\n'
          '  [  40   41   42 ...   57   58   59]\n'
          '  ...\n'
          '  [ 340  341  342 ...  357  358  359]\n'
          '  [ 360  361  362 ...  377  378  379]\n'
          '  [ 380  381  382 ...  397  398  399]]\n'
          '\n'
          ' [[ 400  401  402 ...  417  418  419]\n'
          '  [ 420  421  422 ...  437  438  439]\n'
          '  [ 440  441  442 ...  457  458  459]\n'
          '  ...\n'
          '  [ 740  741  742 ...  757  758  759]\n'
          '  [ 760  761  762 ...  777  778  779]\n'
          '  [ 780  781  782 ...  797  798  799]]\n'
          '\n'
          ' [[ 800  801  802 ...  817  818  819]\n'
          '  [ 820  821  822 ...  837  838  839]\n'
          '  [ 840  841  842 ...  857  858  859]\n'
          '  ...\n'
          '  [1140 1141 1142 ... 1157 1158 1159]\n'
          '  [1160 1161 1162 ... 1177 1178 1179]\n'
          '  [1180 1181 1182 ... 1197 1198 1199]]\n'
          '\n'
          ' ...\n'
          '\n'
          ' [[6800 6801 6802 ... 6817 6818 6819]\n'
          '  [6820 6821 6822 ... 6837 6838 6839]\n'
          '  [6840 6841 6842 ... 6857 6858 6859]\n'
          '  ...\n'
          '  [7140 7141 7142 ... 7157 7158 7159]\n'
          '  [7160 7161 7162 ... 7177 7178 7179]\n'
          '  [7180 7181 7182 ... 7197 7198 7199]]\n'
          '\n'
          ' [[7200 7201 7202 ... 7217 7218 7219]\n'
          '  [7220 7221 7222 ... 7237 7238 7239]\n'
          '  [7240 7241 7242 ... 7257 7258 7259]\n'
          '  ...\n'
          '  [7540 7541 7542 ... 7557 7558 7559]\n'
          '  [7560 7561 7562 ... 7577 7578 7579]\n'
          '  [7580 7581 7582 ... 7597 7598 7599]]\n'
          '\n'
          ' [[7600 7601 7602 ... 7617 7618 7619]\n'
          '  [7620 7621 7622 ... 7637 7638 7639]\n'
          '  [7640 7641 7642 ... 7657 7658 7659]\n'
          '  ...\n'
          '  [7940 7941 7942 ... 7957 7958 7959]\n'
          '  [7960 7961 7962 ... 7977 7978 7979]\n'
          '  [7980 7981 7982 ... 7997 7998 7999]]]')),
    Case(np.array([5, -6, 127], np.int8), False,
         'Array([  5,  -6, 127], dtype=int8)',
         '[  5  -6 127]'),
    Case(np.array(5, np.int8), False,
         'Array(5, dtype=int8)',
         '5'),
    Case(np.array([5, 6, 4294967295], np.uint32), False,
         'Array([         5,          6, 4294967295], dtype=uint32)',
         '[         5          6 4294967295]'),
    Case(np.array([1, 2], np.uint8), False,
         'Array([1, 2], dtype=uint8)',
         '[1 2]'),
    Case(np.array([-1, 2], np.int16), False,
         'Array([-1,  2], dtype=int16)',
         '[-1  2]'),
    Case(np.array([True, False] * 40), False,
         ('Array([ True, False,  True, False,  True, False,  True, False,  True,\n'
          '       False,  True, False,  True, False,  True, False,  True, False,\n'
          '        True, False,  True, False,  True, False,  True, False,  True,\n'
          '       False,  True, False,  True, False,  True, False,  True, False,\n'
          '        True, False,  True, False,  True, False,  True, False,  True,\n'
          '       False,  True, False,  True, False,  True, False,  True, False,\n'
          '        True, False,  True, False,  True, False,  True, False,  True,\n'
          '       False,  True, False,  True, False,  True, False,  True, False,\n'
          '        True, False,  True, False,  True, False,  True, False],      dtype=bool)'),
         ('[ True False  True False  True False  True False  True False  True False\n'
          '  True False  True False  True False  True False  True False  True False\n'
          '  True False  True False  True False  True False  True False  True False\n'
          '  True False  True False  True False  True False  True False  True False\n'
          '  True False  True False  True False  True False  True False  True False\n'
          '  True False  True False  True False  True False  True False  True False\n'
          '  True False  True False  True False  True False]')),
    Case(np.array([np.nan, np.inf, -np.inf, 1.], np.float32), False,
         'Array([ nan,  inf, -inf,   1.], dtype=float32)',
         '[ nan  inf -inf   1.]'),
    Case(np.array([np.nan, 1.5], np.float32), False,
         'Array([nan, 1.5], dtype=float32)',
         '[nan 1.5]'),
    Case(np.array(np.nan, np.float32), True,
         'Array(nan, dtype=float32, weak_type=True)',
         'nan'),
    Case(np.array([1, 2], bfloat16), False,
         'Array([1, 2], dtype=bfloat16)',
         '[1 2]'),
    Case(np.array([1, 2, 3], bfloat16) / np.array(3, bfloat16), False,
         'Array([0.333984, 0.667969, 1], dtype=bfloat16)',
         '[0.333984 0.667969 1]'),
    Case(np.array([1.5, -2.25, 1e-3], bfloat16), False,
         'Array([1.5, -2.25, 0.000999451], dtype=bfloat16)',
         '[1.5 -2.25 0.000999451]'),
    Case(np.array(1.5, bfloat16), False,
         'Array(1.5, dtype=bfloat16)',
         '1.5'),
    Case(np.array([[1, 2.5], [np.nan, np.inf]], bfloat16), False,
         ('Array([[1, 2.5],\n'
          '       [nan, inf]], dtype=bfloat16)'),
         ('[[1 2.5]\n'
          ' [nan inf]]')),
    Case(np.arange(2000, dtype=np.float32).astype(bfloat16), False,
         'Array([0, 1, 2, ..., 2000, 2000, 2000], dtype=bfloat16)',
         '[0 1 2 ... 2000 2000 2000]'),
    Case(np.array([1.5, 2, 3], float16) / float16(3), False,
         'Array([0.5   , 0.6665, 1.    ], dtype=float16)',
         '[0.5    0.6665 1.    ]'),
    Case(np.array([65504, -1e-4], float16), False,
         'Array([ 6.55e+04, -1.00e-04], dtype=float16)',
         '[ 6.55e+04 -1.00e-04]'),
    Case(np.array(0.5, float16), False,
         'Array(0.5, dtype=float16)',
         '0.5'),
    Case(np.zeros((0,), np.float32), False,
         'Array([], shape=(0,), dtype=float32)',
         '[]'),
    Case(np.zeros((0, 3), np.float32), False,
         'Array([], shape=(0, 3), dtype=float32)',
         '[]'),
    Case(np.zeros((2, 0, 3), np.int32), False,
         'Array([], shape=(2, 0, 3), dtype=int32)',
         '[]'),
    Case(np.zeros((0,), np.float32), True,
         'Array([], shape=(0,), dtype=float32, weak_type=True)',
         '[]'),
    Case(np.array([1+2j, -3.5-1j, 0j], np.complex64), False,
         'Array([ 1. +2.j, -3.5-1.j,  0. +0.j], dtype=complex64)',
         '[ 1. +2.j -3.5-1.j  0. +0.j]'),
    Case((np.arange(30) * (1 + 1j)).astype(np.complex64), False,
         ('Array([ 0. +0.j,  1. +1.j,  2. +2.j,  3. +3.j,  4. +4.j,  5. +5.j,\n'
          '        6. +6.j,  7. +7.j,  8. +8.j,  9. +9.j, 10.+10.j, 11.+11.j,\n'
          '       12.+12.j, 13.+13.j, 14.+14.j, 15.+15.j, 16.+16.j, 17.+17.j,\n'
          '       18.+18.j, 19.+19.j, 20.+20.j, 21.+21.j, 22.+22.j, 23.+23.j,\n'
          '       24.+24.j, 25.+25.j, 26.+26.j, 27.+27.j, 28.+28.j, 29.+29.j],'
          '      dtype=complex64)'),
         ('[ 0. +0.j  1. +1.j  2. +2.j  3. +3.j  4. +4.j  5. +5.j  6. +6.j  7. +7.j\n'
          '  8. +8.j  9. +9.j 10.+10.j 11.+11.j 12.+12.j 13.+13.j 14.+14.j 15.+15.j\n'
          ' 16.+16.j 17.+17.j 18.+18.j 19.+19.j 20.+20.j 21.+21.j 22.+22.j 23.+23.j\n'
          ' 24.+24.j 25.+25.j 26.+26.j 27.+27.j 28.+28.j 29.+29.j]')),
    Case(np.array(1j, np.complex64), False,
         'Array(0.+1.j, dtype=complex64)',
         '1j'),
    Case(np.array([1e10, 1.], np.float32), False,
         'Array([1.e+10, 1.e+00], dtype=float32)',
         '[1.e+10 1.e+00]'),
    Case(np.array([1e-10, 1.], np.float32), False,
         'Array([1.e-10, 1.e+00], dtype=float32)',
         '[1.e-10 1.e+00]'),
    Case(np.array([0., -0.], np.float32), False,
         'Array([ 0., -0.], dtype=float32)',
         '[ 0. -0.]'),
    Case(np.array([100000., 1.], np.float32), False,
         'Array([1.e+05, 1.e+00], dtype=float32)',
         '[1.e+05 1.e+00]'),
    Case(np.array([1., 2.], np.float64), False,
         'Array([1., 2.], dtype=float64)',
         '[1. 2.]'),
    Case(np.array(3., np.float64), True,
         'Array(3., dtype=float64, weak_type=True)',
         '3.0'),
    Case(np.array([1, 2], np.int64), False,
         'Array([1, 2], dtype=int64)',
         '[1 2]'),
    Case(np.array([1, 2], np.uint64), False,
         'Array([1, 2], dtype=uint64)',
         '[1 2]'),
    Case(np.array([1+2j], np.complex128), False,
         'Array([1.+2.j], dtype=complex128)',
         '[1.+2.j]'),
    Case(np.arange(13, dtype=np.float32).reshape(1, 13), False,
         ('Array([[ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12.]],'
          '      dtype=float32)'),
         '[[ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10. 11. 12.]]'),
    Case(np.arange(12, dtype=np.float32).reshape(1, 12), False,
         ('Array([[ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11.]],'
          '      dtype=float32)'),
         '[[ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10. 11.]]'),
    Case(np.arange(11, dtype=np.float32).reshape(1, 1, 11), False,
         ('Array([[[ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10.]]],'
          '      dtype=float32)'),
         '[[[ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10.]]]'),
    Case(np.arange(12, dtype=np.float32), True,
         ('Array([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11.],'
          '      dtype=float32, weak_type=True)'),
         '[ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10. 11.]'),
    Case(np.arange(13, dtype=np.float32), True,
         ('Array([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12.],'
          '      dtype=float32, weak_type=True)'),
         '[ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10. 11. 12.]'),
    Case(np.arange(10, 30, dtype=np.int32), False,
         ('Array([10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26,\n'
          '       27, 28, 29], dtype=int32)'),
         '[10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29]'),
    Case(np.arange(10, 33, dtype=np.int32), False,
         ('Array([10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26,\n'
          '       27, 28, 29, 30, 31, 32], dtype=int32)'),
         '[10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32]'),
    Case(np.arange(10, 33, dtype=np.int32).reshape(1, 23), False,
         ('Array([[10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,\n'
          '        26, 27, 28, 29, 30, 31, 32]], dtype=int32)'),
         '[[10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32]]'),
    Case(np.arange(10, 31, dtype=np.int8), False,
         ('Array([10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26,\n'
          '       27, 28, 29, 30], dtype=int8)'),
         '[10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30]'),
    Case(np.arange(100, 124, dtype=np.uint8), False,
         ('Array([100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112,\n'
          '       113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123],      dtype=uint8)'),
         ('[100 101 102 103 104 105 106 107 108 109 110 111 112 113 114 115 116 117\n'
          ' 118 119 120 121 122 123]')),
    Case(np.ones((3, 1), bool), False,
         ('Array([[ True],\n'
          '       [ True],\n'
          '       [ True]], dtype=bool)'),
         ('[[ True]\n'
          ' [ True]\n'
          ' [ True]]')),
    Case(np.array([[True]]), False,
         'Array([[ True]], dtype=bool)',
         '[[ True]]'),
    Case(np.arange(6, dtype=np.int32).reshape(3, 2, 1), False,
         ('Array([[[0],\n'
          '        [1]],\n'
          '\n'
          '       [[2],\n'
          '        [3]],\n'
          '\n'
          '       [[4],\n'
          '        [5]]], dtype=int32)'),
         ('[[[0]\n'
          '  [1]]\n'
          '\n'
          ' [[2]\n'
          '  [3]]\n'
          '\n'
          ' [[4]\n'
          '  [5]]]')),
    Case(np.array([1., 2.], float8_e4m3fn), False,
         'Array([1, 2], dtype=float8_e4m3fn)',
         '[1 2]'),
    Case(np.array([[1., 2.]], float8_e5m2), False,
         'Array([[1, 2]], dtype=float8_e5m2)',
         '[[1 2]]'),
    Case(np.array([1, -2], int4), False,
         'Array([1, -2], dtype=int4)',
         '[1 -2]'),
    Case(np.array([1, 3], uint4), False,
         'Array([1, 3], dtype=uint4)',
         '[1 3]'),
]


def _id(case):
  return f"{case.value.dtype}{list(case.value.shape)}{'-weak' if case.weak else ''}"


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_repr_matches_jax(case):
  assert array_repr(case.value, case.value.dtype, case.weak) == case.expected_repr


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_str_matches_jax(case):
  assert array_str(case.value, case.value.dtype) == case.expected_str


def test_seed_values():
  x = np.array([-0.10570311, -0.59403396, -0.8680282, -0.23489487], np.float32)
  assert array_repr(x, x.dtype, False) == (
      "Array([-0.10570311, -0.59403396, -0.8680282 , -0.23489487], dtype=float32)")
  y = np.array([0.25773212, 5.3623195, 5.403243], np.float32)
  assert array_repr(y, y.dtype, False) == (
      "Array([0.25773212, 5.3623195 , 5.403243  ], dtype=float32)")


def test_random_values():
  x = np.random.RandomState(0).randn(3, 4).astype(np.float32)
  assert array_repr(x, x.dtype, False) == (
      "Array([[ 1.7640524 ,  0.4001572 ,  0.978738  ,  2.2408931 ],\n"
      "       [ 1.867558  , -0.9772779 ,  0.95008844, -0.1513572 ],\n"
      "       [-0.10321885,  0.41059852,  0.14404356,  1.4542735 ]],      dtype=float32)")


def test_dtype_argument_names_the_dtype():
  # The printed name comes from dtype, not from the host value's dtype.
  x = np.array([1, 0], np.bool_)
  assert array_repr(x, np.dtype(np.float32), False) == "Array([ True, False], dtype=float32)"


def test_follows_numpy_print_options():
  x = np.arange(6, dtype=np.float32)
  with np.printoptions(linewidth=20):
    assert array_repr(x, x.dtype, False) == (
        "Array([0., 1., 2.,\n"
        "       3., 4., 5.],      dtype=float32)")
  with np.printoptions(threshold=4, edgeitems=1):
    assert array_repr(x, x.dtype, False) == "Array([0., ..., 5.], dtype=float32)"
    assert array_str(x, x.dtype) == "[0. ... 5.]"
  with np.printoptions(precision=2, suppress=True):
    y = np.array([1.5, 2.5], np.float32) * np.float32(1.2345)
    assert array_repr(y, y.dtype, False) == "Array([1.85, 3.09], dtype=float32)"


def test_float0_prints_as_void():
  float0 = np.dtype([("float0", np.void, 0)])
  x = np.zeros((2,), float0)
  # JAX prints float0 values (a numpy subclass) with dtype.name, which is 'void'.
  assert array_repr(x, float0, False) == "Array([(b'',), (b'',)], dtype=void)"
