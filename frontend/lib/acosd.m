function y = acosd(x)
%ACOSD  The inverse cosine in degrees, as Octave computes it: acos(x) .* 180 ./ pi.
y = acos(x) .* 180 ./ pi;
end
