function y = logspace(a, b, n)
%LOGSPACE  n points (50 without n) spaced evenly on a log scale from 10^a to 10^b, as Octave
%   computes them: 10 .^ linspace(a, b, n); a b of pi ends the row at pi itself.
%
%   m2cu's own MATLAB source.
if nargin < 3
  n = 50;
end
if numel(a) ~= 1 || numel(b) ~= 1 || numel(n) ~= 1
  error('logspace: arguments A, B, and N must be scalars');
end
if b == pi
  b = log10(pi);
end
y = 10 .^ linspace(a, b, fix(n));
end
