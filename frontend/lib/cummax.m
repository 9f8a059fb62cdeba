function [w, iw] = cummax(x, dim)
%CUMMAX  Running maxima along the first dimension whose extent is not 1, or along DIM.
%   [w, iw] = cummax(x, dim): iw(k) is the index along the line of w(k), the first one among
%   equal values (Octave's second output; MATLAB has only the first). NaN is skipped.
if nargin < 2
  dim = 1;
end
[w, iw] = m2cu_cumextreme('cummax', x, dim, nargin == 2, true);
end
