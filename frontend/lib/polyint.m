function q = polyint(p, k)
%POLYINT  The coefficients (highest power first, a row) of the integral of the polynomial p with
%   constant of integration k (0 when not given), as Octave computes them: [p ./ (n:-1:1), k].
%
%   m2cu's own MATLAB source: no coefficients stop (Octave's result is a 0-by-0 [], which the
%   row that m2cu returns cannot be).
if nargin < 2
  k = 0;
end
if ~isfloat(p) || ~isreal(p)
  m2cu_refuse('`polyint` of integer, logical, char or complex values', 'convert first, `polyint(double(p))`; for complex coefficients, take the real and imaginary parts apart');
end
if ~isscalar(k)
  error('polyint: the constant of integration must be a scalar');
end
if ~isvector(p) && ~isempty(p)
  error('polyint: argument must be a vector');
end
n = numel(p);
if n == 0
  error('m2cu:polyint', 'm2cu: polyint of no coefficients is [] (0-by-0) in Octave, which m2cu''s row result cannot be; test isempty(p) first');
end
q = [reshape(p, 1, []) ./ (n:-1:1), k];
end
