; tenspiler certificate for 'dot' (dot.c:1:5)
; program summary:
;   return = reduce_sum(tensor_tensor(take(a, n), take(b, n), *))
; loop invariant:
;   0 <= i <= n and s == reduce_sum(tensor_tensor(take(a, i), take(b, i), *))
; Each (check-sat) below must answer unsat: the negated clause has no model.
(set-logic ALL)
(set-option :produce-models true)
(set-option :incremental true)
; C integer division truncates toward zero (C11 6.5.5); SMT-LIB div/mod are Euclidean.
(define-fun c_div ((x Int) (y Int)) Int
  (let ((q (div (abs x) (abs y)))) (ite (= (>= x 0) (> y 0)) q (- q))))
(define-fun c_mod ((x Int) (y Int)) Int
  (let ((r (mod (abs x) (abs y)))) (ite (>= x 0) r (- r))))
; C conversion of a real to an integer truncates toward zero.
(define-fun c_trunc ((x Real)) Int (ite (>= x 0.0) (to_int x) (- (to_int (- x)))))
; math functions: exp, sqrt, log, tanh, expm1, cos, sin are uninterpreted (any function in their place); fabs is exact
(declare-fun tenspiler.exp (Real) Real)
(declare-fun tenspiler.expm1 (Real) Real)
(declare-fun tenspiler.cos (Real) Real)
(declare-fun tenspiler.sin (Real) Real)
(declare-fun tenspiler.sqrt (Real) Real)
(declare-fun tenspiler.log (Real) Real)
(declare-fun tenspiler.tanh (Real) Real)
(define-fun tenspiler.fabs ((x Real)) Real (ite (>= x 0.0) x (- x)))
(declare-const a.0 (Array Int Int))
(declare-const b.0 (Array Int Int))
(declare-const n.0 Int)
(declare-const i.h Int)
(declare-const s.h Int)
(define-fun-rec rsum_0 ((x0 (Array Int Int)) (x1 (Array Int Int)) (m Int)) Int
  (ite (<= m 0) 0 (+ (rsum_0 x0 x1 (- m 1)) (* (select x0 (- m 1)) (select x1 (- m 1))))))
; assumptions (preconditions of the proof)
;   the loop runs a non-negative number of times: 0 <= n
;   a has an element at every index in [0, n), the range the summary reads or writes
;   b has an element at every index in [0, n), the range the summary reads or writes
;   the pointer parameters a, b point to distinct, non-overlapping arrays
;   signed integer arithmetic does not overflow: int and long are modelled as mathematical integers (signed overflow is undefined behaviour, C11 §6.5p5)
; clause: initiation (expected: unsat)
(push 1)
(assert (<= 0 n.0))
(assert (<= 0 0))
(assert (<= 0 0))
(assert (not (and (<= 0 0) (<= 0 n.0) (= 0 (rsum_0 a.0 b.0 0)))))
(check-sat)
(pop 1)

(reset)
(set-logic ALL)
(set-option :produce-models true)
(set-option :incremental true)
; C integer division truncates toward zero (C11 6.5.5); SMT-LIB div/mod are Euclidean.
(define-fun c_div ((x Int) (y Int)) Int
  (let ((q (div (abs x) (abs y)))) (ite (= (>= x 0) (> y 0)) q (- q))))
(define-fun c_mod ((x Int) (y Int)) Int
  (let ((r (mod (abs x) (abs y)))) (ite (>= x 0) r (- r))))
; C conversion of a real to an integer truncates toward zero.
(define-fun c_trunc ((x Real)) Int (ite (>= x 0.0) (to_int x) (- (to_int (- x)))))
; math functions: exp, sqrt, log, tanh, expm1, cos, sin are uninterpreted (any function in their place); fabs is exact
(declare-fun tenspiler.exp (Real) Real)
(declare-fun tenspiler.expm1 (Real) Real)
(declare-fun tenspiler.cos (Real) Real)
(declare-fun tenspiler.sin (Real) Real)
(declare-fun tenspiler.sqrt (Real) Real)
(declare-fun tenspiler.log (Real) Real)
(declare-fun tenspiler.tanh (Real) Real)
(define-fun tenspiler.fabs ((x Real)) Real (ite (>= x 0.0) x (- x)))
(declare-const a.0 (Array Int Int))
(declare-const b.0 (Array Int Int))
(declare-const n.0 Int)
(declare-const i.h Int)
(declare-const s.h Int)
(define-fun-rec rsum_0 ((x0 (Array Int Int)) (x1 (Array Int Int)) (m Int)) Int
  (ite (<= m 0) 0 (+ (rsum_0 x0 x1 (- m 1)) (* (select x0 (- m 1)) (select x1 (- m 1))))))
; assumptions (preconditions of the proof)
;   the loop runs a non-negative number of times: 0 <= n
;   a has an element at every index in [0, n), the range the summary reads or writes
;   b has an element at every index in [0, n), the range the summary reads or writes
;   the pointer parameters a, b point to distinct, non-overlapping arrays
;   signed integer arithmetic does not overflow: int and long are modelled as mathematical integers (signed overflow is undefined behaviour, C11 §6.5p5)
; clause: preservation (expected: unsat)
(push 1)
(assert (<= 0 n.0))
(assert (<= 0 0))
(assert (<= 0 0))
(assert (and (<= 0 i.h) (<= i.h n.0) (= s.h (rsum_0 a.0 b.0 i.h))))
(assert (< i.h n.0))
(assert (not (and (<= 0 (+ i.h 1)) (<= (+ i.h 1) n.0) (= (+ s.h (* (select a.0 i.h) (select b.0 i.h))) (rsum_0 a.0 b.0 (+ i.h 1))))))
(check-sat)
(pop 1)

(reset)
(set-logic ALL)
(set-option :produce-models true)
(set-option :incremental true)
; C integer division truncates toward zero (C11 6.5.5); SMT-LIB div/mod are Euclidean.
(define-fun c_div ((x Int) (y Int)) Int
  (let ((q (div (abs x) (abs y)))) (ite (= (>= x 0) (> y 0)) q (- q))))
(define-fun c_mod ((x Int) (y Int)) Int
  (let ((r (mod (abs x) (abs y)))) (ite (>= x 0) r (- r))))
; C conversion of a real to an integer truncates toward zero.
(define-fun c_trunc ((x Real)) Int (ite (>= x 0.0) (to_int x) (- (to_int (- x)))))
; math functions: exp, sqrt, log, tanh, expm1, cos, sin are uninterpreted (any function in their place); fabs is exact
(declare-fun tenspiler.exp (Real) Real)
(declare-fun tenspiler.expm1 (Real) Real)
(declare-fun tenspiler.cos (Real) Real)
(declare-fun tenspiler.sin (Real) Real)
(declare-fun tenspiler.sqrt (Real) Real)
(declare-fun tenspiler.log (Real) Real)
(declare-fun tenspiler.tanh (Real) Real)
(define-fun tenspiler.fabs ((x Real)) Real (ite (>= x 0.0) x (- x)))
(declare-const a.0 (Array Int Int))
(declare-const b.0 (Array Int Int))
(declare-const n.0 Int)
(declare-const i.h Int)
(declare-const s.h Int)
(define-fun-rec rsum_0 ((x0 (Array Int Int)) (x1 (Array Int Int)) (m Int)) Int
  (ite (<= m 0) 0 (+ (rsum_0 x0 x1 (- m 1)) (* (select x0 (- m 1)) (select x1 (- m 1))))))
; assumptions (preconditions of the proof)
;   the loop runs a non-negative number of times: 0 <= n
;   a has an element at every index in [0, n), the range the summary reads or writes
;   b has an element at every index in [0, n), the range the summary reads or writes
;   the pointer parameters a, b point to distinct, non-overlapping arrays
;   signed integer arithmetic does not overflow: int and long are modelled as mathematical integers (signed overflow is undefined behaviour, C11 §6.5p5)
; clause: exit (expected: unsat)
(push 1)
(assert (<= 0 n.0))
(assert (<= 0 0))
(assert (<= 0 0))
(assert (and (<= 0 i.h) (<= i.h n.0) (= s.h (rsum_0 a.0 b.0 i.h))))
(assert (not (< i.h n.0)))
(assert (not (= i.h n.0)))
(check-sat)
(pop 1)

(reset)
(set-logic ALL)
(set-option :produce-models true)
(set-option :incremental true)
; C integer division truncates toward zero (C11 6.5.5); SMT-LIB div/mod are Euclidean.
(define-fun c_div ((x Int) (y Int)) Int
  (let ((q (div (abs x) (abs y)))) (ite (= (>= x 0) (> y 0)) q (- q))))
(define-fun c_mod ((x Int) (y Int)) Int
  (let ((r (mod (abs x) (abs y)))) (ite (>= x 0) r (- r))))
; C conversion of a real to an integer truncates toward zero.
(define-fun c_trunc ((x Real)) Int (ite (>= x 0.0) (to_int x) (- (to_int (- x)))))
; math functions: exp, sqrt, log, tanh, expm1, cos, sin are uninterpreted (any function in their place); fabs is exact
(declare-fun tenspiler.exp (Real) Real)
(declare-fun tenspiler.expm1 (Real) Real)
(declare-fun tenspiler.cos (Real) Real)
(declare-fun tenspiler.sin (Real) Real)
(declare-fun tenspiler.sqrt (Real) Real)
(declare-fun tenspiler.log (Real) Real)
(declare-fun tenspiler.tanh (Real) Real)
(define-fun tenspiler.fabs ((x Real)) Real (ite (>= x 0.0) x (- x)))
(declare-const a.0 (Array Int Int))
(declare-const b.0 (Array Int Int))
(declare-const n.0 Int)
(declare-const i.h Int)
(declare-const s.h Int)
(define-fun-rec rsum_0 ((x0 (Array Int Int)) (x1 (Array Int Int)) (m Int)) Int
  (ite (<= m 0) 0 (+ (rsum_0 x0 x1 (- m 1)) (* (select x0 (- m 1)) (select x1 (- m 1))))))
; assumptions (preconditions of the proof)
;   the loop runs a non-negative number of times: 0 <= n
;   a has an element at every index in [0, n), the range the summary reads or writes
;   b has an element at every index in [0, n), the range the summary reads or writes
;   the pointer parameters a, b point to distinct, non-overlapping arrays
;   signed integer arithmetic does not overflow: int and long are modelled as mathematical integers (signed overflow is undefined behaviour, C11 §6.5p5)
; clause: post (expected: unsat)
(push 1)
(assert (<= 0 n.0))
(assert (<= 0 0))
(assert (<= 0 0))
(assert (and (<= 0 i.h) (<= i.h n.0) (= s.h (rsum_0 a.0 b.0 i.h))))
(assert (= i.h n.0))
(assert (not (and (= s.h (rsum_0 a.0 b.0 n.0)))))
(check-sat)
(pop 1)
