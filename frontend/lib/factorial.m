function f = factorial(n)
%FACTORIAL  n!, elementwise, as Octave computes it: round(gamma(n + 1)); Inf past 170.
if any(n(:) < 0 | n(:) ~= fix(n(:)))
  error('factorial: all N must be real non-negative integers');
end
f = round(gamma(n + 1));
end
