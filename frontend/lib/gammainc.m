function y = gammainc(x, a, tail)
%GAMMAINC  The regularized incomplete gamma function, elementwise: P(a, x), the integral of
%   t^(a-1) exp(-t) from 0 to x divided by gamma(a), or with tail 'upper' Q(a, x) = 1 - P(a, x),
%   computed directly (accurate where P is near 1). As Octave: x and a real, of one size or
%   scalars, a >= 0; P is 1 at x = a = 0, 0 at x = 0 < a, 1 where a = 0 < x or x = Inf, 0 where
%   a = Inf > x, NaN at x = a = Inf and for NaN. Double values only: Octave computes single
%   values in single precision with algorithms of its own, which m2cu does not reproduce.
%
%   m2cu's own MATLAB source: the power series of P where x < a + 1 and the continued fraction
%   of Q (modified Lentz) elsewhere, each summed to double's rounding, with the prefactor
%   x^a exp(-x) / gamma(a) written so that it does not cancel for large a (see prefactor).
%   Octave picks among more algorithms, so the two agree to about 1e-13 relative rather than
%   to the bit (and where Octave's series loses digits, at x = 0.5, a = 10 for one, m2cu's
%   value is the closer one). Negative x (a series in Octave) and a finite a above 1e10 (where
%   Octave switches to an asymptotic expansion) stop.
if ~isa(x, 'double') || ~isa(a, 'double')
  m2cu_refuse('`gammainc` of single, integer, logical or char values', 'convert first, `gammainc(double(x), double(a))`');
end
if ~isreal(x) || ~isreal(a)
  error('gammainc: all inputs must be real');
end
if numel(x) ~= 1 && numel(a) ~= 1 && ~isequal(size(x), size(a))
  error('gammainc: X and A must be of common size or scalars');
end
if any(a(:) < 0)
  error('gammainc: A must be non-negative');
end
if any(x(:) < 0)
  error('m2cu:gammainc', 'm2cu: gammainc of negative x is not supported yet');
end
if any(a(:) > 1e10 & a(:) < Inf)
  error('m2cu:gammainc', 'm2cu: gammainc with a above 1e10 is not supported yet (its series would take about sqrt(a) steps)');
end
upper_tail = false;
if nargin == 3
  if strcmpi(tail, 'upper')
    upper_tail = true;
  elseif ~strcmpi(tail, 'lower')
    error('gammainc: invalid value for TAIL');
  end
end
if numel(x) == 1
  y = zeros(size(a));
else
  y = zeros(size(x));
end
for k = 1:numel(y)
  y(k) = incomplete(x(min(k, numel(x))), a(min(k, numel(a))), upper_tail);
end
end

function p = incomplete(x, a, upper_tail)
% P(a, x), or Q(a, x) when upper_tail, for one x >= 0 and a >= 0.
if isnan(x) || isnan(a) || (x == Inf && a == Inf)
  lowerp = NaN;
elseif x == 0
  lowerp = double(a == 0);
elseif a == 0 || x == Inf
  lowerp = 1;
elseif a == Inf
  lowerp = 0;
elseif x < a + 1
  lowerp = series(x, a);
else
  q = fraction(x, a);
  if upper_tail
    p = q;
  else
    p = 1 - q;
  end
  return;
end
if upper_tail
  p = 1 - lowerp;
else
  p = lowerp;
end
end

function s = series(x, a)
% P(a, x) = x^a exp(-x) / gamma(a + 1) * (1 + x/(a+1) + x^2/((a+1)(a+2)) + ...).
term = 1;
s = term;
n = a;
while abs(term) > abs(s) * eps
  n = n + 1;
  term = term * x / n;
  s = s + term;
end
s = s * prefactor(x, a) / a;
end

function q = fraction(x, a)
% Q(a, x) = x^a exp(-x) / gamma(a) * 1/(x+1-a- 1(1-a)/(x+3-a- 2(2-a)/(x+5-a- ...))), by the
% modified Lentz method.
tiny = realmin;
b = x + 1 - a;
c = 1 / tiny;
d = 1 / b;
h = d;
delta = 2;
i = 0;
while abs(delta - 1) > eps
  i = i + 1;
  an = -i * (i - a);
  b = b + 2;
  d = an * d + b;
  if abs(d) < tiny
    d = tiny;
  end
  c = b + an / c;
  if abs(c) < tiny
    c = tiny;
  end
  d = 1 / d;
  delta = d * c;
  h = h * delta;
end
q = prefactor(x, a) * h;
end

function f = prefactor(x, a)
% x^a exp(-x) / gamma(a). For a >= 15 as exp(-a d - stirlerr(a)) sqrt(a / (2 pi)) with
% d = u - log(1 + u), u = (x - a) / a (log1p(u) near u = 0, log(x / a) elsewhere, where 1 + u
% would round), and Stirling's series for stirlerr(a) = gammaln(a) - (a - 1/2) log(a) + a
% - log(2 pi) / 2 (five terms: the next is below 3e-16 there): the exponent's error is near
% eps * |x - a| rather than eps * a * log(x).
if a < 15
  f = exp(a * log(x) - x - gammaln(a));
else
  u = (x - a) / a;
  if abs(u) < 0.5
    d = u - log1p(u);
  else
    d = u - log(x / a);
  end
  stirlerr = 1 / (12 * a) - 1 / (360 * a^3) + 1 / (1260 * a^5) - 1 / (1680 * a^7) + 1 / (1188 * a^9);
  f = exp(-a * d - stirlerr) * sqrt(a / (2 * pi));
end
end
