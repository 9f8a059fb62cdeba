function q = polyder(p)
%POLYDER  The coefficients (highest power first, a row) of the derivative of the polynomial p,
%   as Octave computes them: p(1:n-1) .* (n-1:-1:1) for n coefficients, 0 for a constant.
%
%   m2cu's own MATLAB source: one input (the derivative of a product or quotient, polyder(a, b),
%   is not supported yet); no coefficients stop (Octave's result is a 0-by-0 [], which the
%   row that m2cu returns cannot be).
if ~isfloat(p) || ~isreal(p)
  m2cu_refuse('`polyder` of integer, logical, char or complex values', 'convert first, `polyder(double(p))`; for complex coefficients, differentiate the real and imaginary parts');
end
if ~isvector(p) && ~isempty(p)
  error('polyder: argument must be a vector');
end
n = numel(p);
if n == 0
  error('m2cu:polyder', 'm2cu: polyder of no coefficients is [] (0-by-0) in Octave, which m2cu''s row result cannot be; test isempty(p) first');
end
q = zeros(1, max(n - 1, 1), 'like', p);
for i = 1:n - 1
  q(i) = p(i) * (n - i);
end
end
