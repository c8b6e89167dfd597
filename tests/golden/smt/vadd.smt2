; tenspiler certificate for 'vadd' (vadd.c:1:6)
; program summary:
;   c[0:n] = tensor_tensor(take(a, n), take(b, n), +)
; loop invariant:
;   0 <= i <= n and c[0:i] == tensor_tensor(take(a, i), take(b, i), +) and c[other] == c_0[other]
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
(declare-const c.0 (Array Int Int))
(declare-const n.0 Int)
(declare-const i.h Int)
(declare-const c.h (Array Int Int))
; assumptions (preconditions of the proof)
;   the loop runs a non-negative number of times: 0 <= n
;   a has an element at every index in [0, n), the range the summary reads or writes
;   b has an element at every index in [0, n), the range the summary reads or writes
;   c has an element at every index in [0, n), the range the summary reads or writes
;   the pointer parameters a, b, c point to distinct, non-overlapping arrays
;   signed integer arithmetic does not overflow: int and long are modelled as mathematical integers (signed overflow is undefined behaviour, C11 §6.5p5)
; clause: initiation (expected: unsat)
(push 1)
(assert (<= 0 n.0))
(assert (<= 0 0))
(assert (<= 0 0))
(assert (<= 0 0))
(assert (not (and (<= 0 0) (<= 0 n.0) (forall ((k Int)) (ite (and (<= 0 k) (< k 0)) (= (select c.0 k) (+ (select a.0 (- k 0)) (select b.0 (- k 0)))) (= (select c.0 k) (select c.0 k)))))))
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
(declare-const c.0 (Array Int Int))
(declare-const n.0 Int)
(declare-const i.h Int)
(declare-const c.h (Array Int Int))
; assumptions (preconditions of the proof)
;   the loop runs a non-negative number of times: 0 <= n
;   a has an element at every index in [0, n), the range the summary reads or writes
;   b has an element at every index in [0, n), the range the summary reads or writes
;   c has an element at every index in [0, n), the range the summary reads or writes
;   the pointer parameters a, b, c point to distinct, non-overlapping arrays
;   signed integer arithmetic does not overflow: int and long are modelled as mathematical integers (signed overflow is undefined behaviour, C11 §6.5p5)
; clause: preservation (expected: unsat)
(push 1)
(assert (<= 0 n.0))
(assert (<= 0 0))
(assert (<= 0 0))
(assert (<= 0 0))
(assert (and (<= 0 i.h) (<= i.h n.0) (forall ((k Int)) (ite (and (<= 0 k) (< k i.h)) (= (select c.h k) (+ (select a.0 (- k 0)) (select b.0 (- k 0)))) (= (select c.h k) (select c.0 k))))))
(assert (< i.h n.0))
(assert (not (and (<= 0 (+ i.h 1)) (<= (+ i.h 1) n.0) (= (select (store c.h i.h (+ (select a.0 i.h) (select b.0 i.h))) i.h) (+ (select a.0 i.h) (select b.0 i.h))) (ite (and (<= 0 i.h) (< i.h (+ i.h 1))) (= (+ (select a.0 i.h) (select b.0 i.h)) (+ (select a.0 (- i.h 0)) (select b.0 (- i.h 0)))) (= (+ (select a.0 i.h) (select b.0 i.h)) (select c.0 i.h))) (forall ((k Int)) (=> (not (= k i.h)) (ite (and (<= 0 k) (< k (+ i.h 1))) (= (select (store c.h i.h (+ (select a.0 i.h) (select b.0 i.h))) k) (+ (select a.0 (- k 0)) (select b.0 (- k 0)))) (= (select (store c.h i.h (+ (select a.0 i.h) (select b.0 i.h))) k) (select c.0 k))))))))
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
(declare-const c.0 (Array Int Int))
(declare-const n.0 Int)
(declare-const i.h Int)
(declare-const c.h (Array Int Int))
; assumptions (preconditions of the proof)
;   the loop runs a non-negative number of times: 0 <= n
;   a has an element at every index in [0, n), the range the summary reads or writes
;   b has an element at every index in [0, n), the range the summary reads or writes
;   c has an element at every index in [0, n), the range the summary reads or writes
;   the pointer parameters a, b, c point to distinct, non-overlapping arrays
;   signed integer arithmetic does not overflow: int and long are modelled as mathematical integers (signed overflow is undefined behaviour, C11 §6.5p5)
; clause: exit (expected: unsat)
(push 1)
(assert (<= 0 n.0))
(assert (<= 0 0))
(assert (<= 0 0))
(assert (<= 0 0))
(assert (and (<= 0 i.h) (<= i.h n.0) (forall ((k Int)) (ite (and (<= 0 k) (< k i.h)) (= (select c.h k) (+ (select a.0 (- k 0)) (select b.0 (- k 0)))) (= (select c.h k) (select c.0 k))))))
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
(declare-const c.0 (Array Int Int))
(declare-const n.0 Int)
(declare-const i.h Int)
(declare-const c.h (Array Int Int))
; assumptions (preconditions of the proof)
;   the loop runs a non-negative number of times: 0 <= n
;   a has an element at every index in [0, n), the range the summary reads or writes
;   b has an element at every index in [0, n), the range the summary reads or writes
;   c has an element at every index in [0, n), the range the summary reads or writes
;   the pointer parameters a, b, c point to distinct, non-overlapping arrays
;   signed integer arithmetic does not overflow: int and long are modelled as mathematical integers (signed overflow is undefined behaviour, C11 §6.5p5)
; clause: post (expected: unsat)
(push 1)
(assert (<= 0 n.0))
(assert (<= 0 0))
(assert (<= 0 0))
(assert (<= 0 0))
(assert (and (<= 0 i.h) (<= i.h n.0) (forall ((k Int)) (ite (and (<= 0 k) (< k i.h)) (= (select c.h k) (+ (select a.0 (- k 0)) (select b.0 (- k 0)))) (= (select c.h k) (select c.0 k))))))
(assert (= i.h n.0))
(assert (not (and (forall ((k Int)) (ite (and (<= 0 k) (< k n.0)) (= (select c.h k) (+ (select a.0 (- k 0)) (select b.0 (- k 0)))) (= (select c.h k) (select c.0 k)))) (= n.0 (- n.0 0)))))
(check-sat)
(pop 1)
