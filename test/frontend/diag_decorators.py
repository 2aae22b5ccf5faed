# Errors in decorators are located inside the signature string, at the option, or at the layout.
# RUN: not kfront compile %S/Inputs/bad_signature.py 2>&1 | FileCheck %s --check-prefix=SIG --strict-whitespace
# SIG: bad_signature.py:5:24: error: unknown type 'flot32'
# SIG-NEXT: {{^}}@cuda.jit("void(int32, flot32[:])"){{$}}
# SIG-NEXT: {{^}}                       ^{{$}}
# RUN: not kfront compile %S/Inputs/bad_option.py 2>&1 | FileCheck %s --check-prefix=OPT
# OPT: bad_option.py:5:31: error: unknown cuda.jit option 'fast_math'
# RUN: not kfront compile %S/Inputs/bad_layout.py 2>&1 | FileCheck %s --check-prefix=LAYOUT
# LAYOUT: bad_layout.py:5:51: error: argument 1 is array(float32, 1d, A) but the layout '(m,n)->(m,n)' gives it 2 dimensions
# RUN: not kfront compile %S/Inputs/bad_layout.py -k gu2 --sig 'void(float32[:, :])' 2>&1 | FileCheck %s --check-prefix=LAYOUT2
# LAYOUT2: <signature>:1:1: error: signature has 1 argument but 'gu2' takes 2
